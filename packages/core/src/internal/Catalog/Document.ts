import { Effect } from "effect"
import type { Principal } from "../../Auth/Principal.js"
import type { ChangePart } from "../../Changes/ChangeLog.js"
import { jsonEqual, type JsonObjectBuilder } from "../json.js"
import { RuleViolation } from "../../Shared/Errors.js"
import { merge as mergeTranslations, type Translations } from "../../Shared/Translations.js"
import type { Document, ResourceDefinition, Violation } from "../Resources/ResourceDefinition.js"

/**
 * The pure steps of an upsert on record documents: the rules a body breaks, the merge of a body into the
 * stored document, and what a write changed. No port, no clock: the writer (`RecordWriter`) runs them.
 */

/** Fails with the broken rules of the first reason among `violations`; succeeds when there are none. */
export const violation = (violations: ReadonlyArray<Violation>) => {
  const first = violations[0]
  if (first === undefined) return Effect.void
  const issues = violations.filter((v) => v.reason === first.reason).map((v) => v.issue)
  // The message names the first few; the issues list them all (an answer shows the first 20).
  const named = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`)
  return Effect.fail(
    new RuleViolation({
      reason: first.reason,
      message:
        issues.length > named.length
          ? `${named.join("; ")}; and ${issues.length - named.length} more`
          : named.join("; "),
      issues
    })
  )
}

/** Languages a body may translate into: enabled ones other than the main language. */
export const translationViolations = (
  definition: ResourceDefinition,
  body: Document,
  principal: Principal
): ReadonlyArray<Violation> => {
  const { languages, main_language } = principal.company
  const check = (translations: unknown, path: string, allowed: ReadonlyArray<string>): ReadonlyArray<Violation> =>
    Object.entries((translations ?? {}) as Translations).flatMap(([language, entry]): ReadonlyArray<Violation> => {
      const at = `${path}.${language}`
      if (language === main_language) {
        return [
          {
            reason: "language_not_enabled",
            issue: { path: at, message: `${language} is the main language: send it in name/description` }
          }
        ]
      }
      if (!languages.includes(language)) {
        return [
          {
            reason: "language_not_enabled",
            issue: { path: at, message: `${language} is not an enabled language of the company` }
          }
        ]
      }
      return Object.keys(entry)
        .filter((key) => !allowed.includes(key))
        .map((key) => ({
          reason: "translation_not_allowed" as const,
          issue: { path: `${at}.${key}`, message: `the ${definition.label} ${key} is shared across languages` }
        }))
    })
  const fields = Array.isArray(body.fields) ? (body.fields as ReadonlyArray<Document>) : []
  return [
    ...check(body.translations, "$.translations", definition.translatable),
    ...fields.flatMap((field, i) => check(field.translations, `$.fields[${i}].translations`, ["name", "description"]))
  ]
}

export const mergeDocument = (
  definition: ResourceDefinition,
  base: Document,
  body: Document,
  nextId: () => string
): Document => {
  const out: JsonObjectBuilder = { ...base }
  for (const [key, value] of Object.entries(body)) {
    if (
      key === "external_id" ||
      key === "target_id" ||
      key === "expected_revision" ||
      key === "mode" ||
      key === "currency"
    )
      continue
    if (key === "translations") {
      out.translations = mergeTranslations(base.translations as Translations, value as Translations)
      continue
    }
    const merger = definition.mergers.get(key)
    out[key] = merger === undefined ? value : merger(base[key], value, { nextId })
  }
  return out
}

/** What a write touched, so that the feed shows it to readers of catalog, prices or costs. */
export const changedParts = (
  definition: ResourceDefinition,
  before: Document | undefined,
  after: Document
): ReadonlyArray<ChangePart> => {
  const parts = new Set<ChangePart>()
  if (before === undefined) {
    // A new record also appears in the price lists of resources that have prices.
    parts.add("catalog")
    if (definition.priceKeys.length > 0) parts.add("prices")
    if (definition.costKeys.length > 0) parts.add("costs")
  }
  const base = before ?? definition.defaults
  const compare = (key: string) => !jsonEqual(base[key], after[key])
  for (const key of new Set([...Object.keys(base), ...Object.keys(after)])) {
    // A key whose parts are counted already needs no comparison (the set is all that is kept).
    if (key === "fields") {
      if (parts.has("prices") && parts.has("catalog")) continue
      if (!compare(key)) continue
      // Coefficients are prices (spec 5.9); the rest of a field is catalog data.
      const coefficients = (doc: unknown) => ((doc ?? []) as ReadonlyArray<Document>).map((f) => [f.id, f.coefficient])
      const withoutCoefficients = (doc: unknown) =>
        ((doc ?? []) as ReadonlyArray<Document>).map(({ coefficient: _, ...f }) => f)
      if (!jsonEqual(coefficients(base[key]), coefficients(after[key]))) parts.add("prices")
      if (!jsonEqual(withoutCoefficients(base[key]), withoutCoefficients(after[key]))) parts.add("catalog")
      continue
    }
    const part: ChangePart = definition.priceKeys.includes(key)
      ? "prices"
      : definition.costKeys.includes(key)
        ? "costs"
        : "catalog"
    if (!parts.has(part) && compare(key)) parts.add(part)
  }
  return Array.from(parts)
}

export const missingRequired = (definition: ResourceDefinition, document: Document): ReadonlyArray<Violation> =>
  definition.requiredOnCreate
    .filter((key) => {
      const value = document[key]
      return value === null || value === undefined || (Array.isArray(value) && value.length === 0)
    })
    .map((key) => ({
      reason: "missing_required_field" as const,
      issue: { path: `$.${key}`, message: `${key} is required to create a ${definition.label}` }
    }))
