/**
 * Which scopes a write or read needs, and which fields a caller may see: pure functions of the body,
 * the mode and the caller's scopes.
 */
import type { Scope } from "../../Shared/Scope.js"
import type { Issue } from "../../Shared/Errors.js"
import { controlKeys, type UpsertMode } from "../../Resources/CommonFields.js"
import type { Document, ResourceDefinition } from "../Resources/ResourceDefinition.js"
import { isJsonObject as isDocument, type JsonObjectBuilder } from "../json.js"

/** What a body touches. */
export interface BodyParts {
  readonly catalogKeys: ReadonlyArray<string>
  readonly priceKeys: ReadonlyArray<string>
  readonly costKeys: ReadonlyArray<string>
  /** A selection field sent with an explicit coefficient (needs prices:write). */
  readonly coefficient: boolean
}

/** Safe on any JSON (a body that will fail its schema may still be asked what it touches). */
export const bodyParts = (definition: ResourceDefinition, body: Document): BodyParts => {
  const keys = Object.keys(body).filter((key) => !controlKeys.has(key))
  const fields = body.fields
  return {
    catalogKeys: keys.filter((key) => !definition.priceKeys.includes(key) && !definition.costKeys.includes(key)),
    priceKeys: keys.filter((key) => definition.priceKeys.includes(key)),
    costKeys: keys.filter((key) => definition.costKeys.includes(key)),
    coefficient: Array.isArray(fields) && fields.some((field) => isDocument(field) && field.coefficient !== undefined)
  }
}

/**
 * Fields the mode refuses: prices and costs in catalog mode (spec 2.3: "rejected"). Prices mode refuses
 * nothing: it preserves the catalog fields a body carries and names them (`pricesModeBody`).
 */
export const modeViolations = (mode: UpsertMode, parts: BodyParts): ReadonlyArray<Issue> =>
  mode === "catalog"
    ? [...parts.priceKeys, ...parts.costKeys].map((key) => ({
        path: `$.${key}`,
        message: `${key} cannot be written in catalog mode; use mode prices or combined`
      }))
    : []

/** Keys of a selection field entry that prices mode applies: the field's identity and its coefficient. */
const coefficientEntryKeys: ReadonlySet<string> = new Set(["id", "external_id", "coefficient"])

/**
 * What a prices-mode body writes (spec 2.3: prices mode "changes only price fields of an existing mapped
 * record; names, categories and fabric links are preserved"): its control, price and cost keys, and of
 * its selection fields only the coefficients (spec 5.9), each entry kept in place so paths stay true.
 * `ignored` names every sent catalog field that is therefore not applied, as a JSON path.
 */
export const pricesModeBody = (
  definition: ResourceDefinition,
  body: Document
): { readonly body: Document; readonly ignored: ReadonlyArray<string> } => {
  const kept: JsonObjectBuilder = {}
  const ignored: Array<string> = []
  for (const [key, value] of Object.entries(body)) {
    if (controlKeys.has(key) || definition.priceKeys.includes(key) || definition.costKeys.includes(key)) {
      kept[key] = value
    } else if (
      key === "fields" &&
      Array.isArray(value) &&
      value.some((field) => isDocument(field) && field.coefficient !== undefined)
    ) {
      kept.fields = value.map((field, i) => {
        if (!isDocument(field)) return field
        for (const entryKey of Object.keys(field))
          if (!coefficientEntryKeys.has(entryKey)) ignored.push(`$.fields[${i}].${entryKey}`)
        return Object.fromEntries(Object.entries(field).filter(([entryKey]) => coefficientEntryKeys.has(entryKey)))
      })
    } else {
      ignored.push(`$.${key}`)
    }
  }
  return { body: kept, ignored }
}

/** The scopes a write needs. Creating a record always needs catalog:write. */
export const requiredWriteScopes = (mode: UpsertMode, parts: BodyParts, isCreate: boolean): ReadonlyArray<Scope> => {
  const needed = new Set<Scope>()
  if (mode === "prices") needed.add("prices:write")
  if (
    mode !== "prices" &&
    (parts.catalogKeys.length > 0 || isCreate || (parts.priceKeys.length === 0 && parts.costKeys.length === 0))
  ) {
    needed.add("catalog:write")
  }
  if (parts.priceKeys.length > 0 || parts.coefficient) needed.add("prices:write")
  if (parts.costKeys.length > 0) needed.add("costs:write")
  return Array.from(needed)
}

/** The write scopes of which any upsert of `definition` needs one, whatever its body (prices mode: prices:write). */
export const upsertWriteScopes = (definition: ResourceDefinition): ReadonlyArray<Scope> =>
  definition.costKeys.length > 0 ? ["catalog:write", "prices:write", "costs:write"] : ["catalog:write", "prices:write"]

/**
 * The scopes an upsert body needs, read as sent (before it is decoded, so safe on any JSON): those of its
 * mode (catalog when it names none or an unknown one) and the keys it carries. For a body that decodes,
 * the scopes its decoded form needs.
 */
export const sentWriteScopes = (definition: ResourceDefinition, sent: unknown): ReadonlyArray<Scope> => {
  const body: Document = isDocument(sent) ? sent : {}
  const mode: UpsertMode = body.mode === "prices" || body.mode === "combined" ? body.mode : "catalog"
  const applied = mode === "prices" ? pricesModeBody(definition, body).body : body
  return requiredWriteScopes(mode, bodyParts(definition, applied), false)
}

export const missingScopes = (required: ReadonlyArray<Scope>, held: ReadonlySet<Scope>): ReadonlyArray<Scope> =>
  required.filter((scope) => !held.has(scope))

export type ReadMode = "catalog" | "prices"

/**
 * Removes what the caller may not see from a stored document: its visible keys, in the document's order,
 * are written into `out` (a new object unless given: a view writes them into itself, without a copy).
 */
export const visibleDocument = (
  definition: ResourceDefinition,
  document: Document,
  scopes: ReadonlySet<Scope>,
  mode: ReadMode,
  out: JsonObjectBuilder = {}
): Document => {
  const seePrices = scopes.has("prices:read")
  const seeCosts = scopes.has("costs:read")
  for (const key in document) {
    if (!Object.hasOwn(document, key)) continue
    const value = document[key]
    const isPrice = definition.priceKeys.includes(key)
    const isCost = definition.costKeys.includes(key)
    if (isPrice && !seePrices) continue
    if (isCost && !seeCosts) continue
    if (key === "fields") {
      const fields = value as ReadonlyArray<Document>
      // Coefficients are prices (spec 5.9): the price view shows each field's identity and coefficient only.
      if (mode === "prices") {
        if (seePrices) out.fields = fields.map(({ coefficient, external_id, id }) => ({ id, external_id, coefficient }))
      } else {
        out.fields = seePrices ? fields : fields.map(({ coefficient: _hidden, ...field }) => field)
      }
      continue
    }
    if (mode === "prices" && !isPrice && !isCost) continue
    out[key] = value
  }
  return out
}
