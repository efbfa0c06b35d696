import { Schema } from "effect"
import { Name, opt } from "../../Resources/CommonFields.js"
import type { Violation } from "../Resources/ResourceDefinition.js"
import { Coefficient } from "../Shared/Decimal.js"
import { maxItemsDocs } from "../Shared/ListDocs.js"
import { ExternalId, type RecordId, UUID, Uuid } from "../../Shared/Ids.js"
import { Reference } from "../../Shared/Reference.js"
import { Translations, TranslationsInput } from "../../Shared/Translations.js"
import { resolvedIds } from "../Resources/Resolved.js"

/**
 * Element of products.fields (spec 2.5): one choice of one option from the linked swatch books. `name`
 * and `type_id` are required in catalog and combined mode (checked on the whole body, which knows its
 * mode); a prices-mode entry sets only the coefficient of the field its id or external_id names.
 */
export const SelectionFieldInput = Schema.Struct({
  id: opt(Uuid),
  external_id: opt(ExternalId),
  name: opt(Name).annotate({ description: "Required unless the body's mode is prices." }),
  translations: opt(TranslationsInput),
  // On the key: the document refers to `Reference` and describes the field beside it.
  type_id: opt(Reference).pipe(Schema.annotateKey({ description: "Required unless the body's mode is prices." })),
  group_ids: opt(
    Schema.Array(Reference).check(
      Schema.isMaxLength(100, { message: "must have at most 100 items", ...maxItemsDocs(100) })
    )
  ),
  coefficient: opt(Coefficient)
}).annotate({ identifier: "SelectionFieldInput" })

/** Keys of a field entry that catalog and combined mode require (a prices-mode entry only names a field). */
export const requiredFieldKeys = ["name", "type_id"] as const

/** The missing required keys of sent field entries, as schema issues (`$.fields[i].name is missing`). */
export const missingFieldKeys = (
  fields: ReadonlyArray<{ readonly [Key in (typeof requiredFieldKeys)[number]]?: unknown }>
) =>
  fields.flatMap((field, i) =>
    requiredFieldKeys
      .filter((key) => field[key] === undefined)
      .map((key) => ({ path: ["fields", i, key], issue: "is missing" }))
  )

export const SelectionField = Schema.Struct({
  id: UUID,
  external_id: Schema.NullOr(Schema.String),
  name: Schema.String,
  translations: Translations,
  type_id: UUID,
  group_ids: Schema.Array(UUID),
  coefficient: Schema.optionalKey(Schema.String).annotate({
    description: "Scales the group's percent rule; visible with prices:read."
  })
}).annotate({ identifier: "SelectionField" })

/** A selection field as a product stores it. */
interface StoredField {
  readonly id: string
  readonly external_id: string | null
  readonly name: string
  readonly translations: Translations
  readonly type_id: RecordId
  readonly group_ids: ReadonlyArray<RecordId>
  readonly coefficient: string
}

/** A selection field entry as a body's schema decoded it. */
type SentField = typeof SelectionFieldInput.Type

/**
 * A sent entry as the merge receives it: catalog and combined mode require its name and type (the body's
 * schema checks them) and the write resolved its References; prices mode merges the stored fields, whose
 * coefficients it set.
 */
type NamedField = SentField & Pick<StoredField, "name" | "type_id">

export const defaultCoefficient = "1"

/**
 * Replaces the field list. A sent field matches a stored one by id or external_id and keeps its id; a
 * field sent without a coefficient keeps the stored one, so a catalog-only connector cannot reset
 * coefficients it is not allowed to see. New fields get a fresh id and coefficient 1.
 */
export const mergeFields = (
  stored: ReadonlyArray<StoredField> | undefined,
  sent: ReadonlyArray<SentField>,
  context: { readonly nextId: () => string }
): ReadonlyArray<StoredField> => {
  const previous = stored ?? []
  return sent.map((entry): StoredField => {
    const field = entry as NamedField
    const match = previous.find(
      (p) =>
        (field.id !== undefined && p.id === field.id) ||
        (field.external_id !== undefined && p.external_id === field.external_id)
    )
    // A matched field keeps what the sent one omits (translations merge per language, as elsewhere).
    return {
      id: match?.id ?? field.id ?? context.nextId(),
      external_id: field.external_id ?? match?.external_id ?? null,
      name: field.name,
      translations: { ...match?.translations, ...field.translations },
      type_id: field.type_id,
      group_ids: field.group_ids === undefined ? (match?.group_ids ?? []) : resolvedIds(field.group_ids),
      coefficient: field.coefficient ?? match?.coefficient ?? defaultCoefficient
    }
  })
}

/** Rules on a sent field list that the schema cannot express. */
export const checkSentFields = (
  sent: ReadonlyArray<SentField>,
  stored: ReadonlyArray<StoredField>
): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = []
  const seenIds = new Set<string>()
  const seenExternal = new Set<string>()
  const seenTargets = new Set<string>()
  sent.forEach((field, i) => {
    const path = `$.fields[${i}]`
    const bad = (message: string) => violations.push({ reason: "invalid_selection_field", issue: { path, message } })
    if (field.id === undefined && field.external_id === undefined) bad("supply id or external_id")
    if (field.id !== undefined) {
      if (!stored.some((s) => s.id === field.id)) bad(`id ${field.id} is not a field of this product`)
      if (seenIds.has(field.id)) bad(`id ${field.id} appears twice`)
      seenIds.add(field.id)
    }
    if (field.external_id !== undefined) {
      if (seenExternal.has(field.external_id)) bad(`external_id ${JSON.stringify(field.external_id)} appears twice`)
      seenExternal.add(field.external_id)
      const owner = stored.find((s) => s.external_id === field.external_id)
      if (field.id !== undefined && owner !== undefined && owner.id !== field.id) {
        bad(`external_id ${JSON.stringify(field.external_id)} belongs to field ${owner.id}`)
      }
    }
    // Two sent fields must not resolve to one stored field (one by id, the other by external_id).
    const target = field.id ?? stored.find((s) => s.external_id === field.external_id)?.id
    if (target !== undefined) {
      if (
        seenTargets.has(target) &&
        !(field.id !== undefined && seenIds.size > 0 && violations.some((v) => v.issue.path === path))
      ) {
        bad(`field ${target} is sent twice`)
      }
      seenTargets.add(target)
    }
  })
  return violations
}

/** A prices-mode entry: names a stored field and may carry its new coefficient. */
interface CoefficientEntry {
  readonly id?: string
  readonly external_id?: string
  readonly coefficient?: string
}

/**
 * Prices mode: sets the coefficients of stored fields, matched by id or external_id, and keeps
 * everything else of every field (spec 5.9: coefficients are prices; the field list is catalog data).
 * An entry without a coefficient changes nothing.
 */
export const setCoefficients = (
  stored: ReadonlyArray<StoredField>,
  sent: ReadonlyArray<CoefficientEntry>
): { readonly fields: ReadonlyArray<StoredField>; readonly violations: ReadonlyArray<Violation> } => {
  const violations: Array<Violation> = []
  const coefficients = new Map<string, string>()
  sent.forEach((entry, i) => {
    if (entry.coefficient === undefined) return
    const bad = (message: string) =>
      violations.push({ reason: "invalid_selection_field", issue: { path: `$.fields[${i}]`, message } })
    if (entry.id === undefined && entry.external_id === undefined)
      return bad("supply the id or external_id of the field whose coefficient to set")
    const match = stored.find(
      (field) =>
        (entry.id === undefined || field.id === entry.id) &&
        (entry.external_id === undefined || field.external_id === entry.external_id)
    )
    if (match === undefined) {
      return bad(
        `no selection field of this product has ${entry.id !== undefined ? `id ${entry.id}` : ""}${entry.id !== undefined && entry.external_id !== undefined ? " and " : ""}${entry.external_id !== undefined ? `external_id ${JSON.stringify(entry.external_id)}` : ""}; prices mode sets coefficients of existing fields only`
      )
    }
    if (coefficients.has(match.id)) return bad(`field ${match.id} is sent twice`)
    coefficients.set(match.id, entry.coefficient)
  })
  return {
    fields: stored.map((field) => ({ ...field, coefficient: coefficients.get(field.id) ?? field.coefficient })),
    violations
  }
}

export type { SentField, StoredField }
