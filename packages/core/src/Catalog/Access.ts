/**
 * Which scopes a write or read needs, and which fields a caller may see: pure functions of the body,
 * the mode and the caller's scopes.
 */
import type { Scope } from "../Shared/Scope.js"
import type { Issue } from "./CatalogErrors.js"
import { controlKeys, type UpsertMode } from "./CommonFields.js"
import type { Document, ResourceDefinition } from "./ResourceDefinition.js"

/** What a body touches. */
export interface BodyParts {
  readonly catalogKeys: ReadonlyArray<string>
  readonly priceKeys: ReadonlyArray<string>
  readonly costKeys: ReadonlyArray<string>
  /** A selection field sent with an explicit coefficient (needs prices:write). */
  readonly coefficient: boolean
}

export const bodyParts = (definition: ResourceDefinition, body: Document): BodyParts => {
  const keys = Object.keys(body).filter((key) => !controlKeys.has(key))
  const fields = body.fields
  return {
    catalogKeys: keys.filter((key) => !definition.priceKeys.includes(key) && !definition.costKeys.includes(key)),
    priceKeys: keys.filter((key) => definition.priceKeys.includes(key)),
    costKeys: keys.filter((key) => definition.costKeys.includes(key)),
    coefficient: Array.isArray(fields) && fields.some((field) => (field as Document).coefficient !== undefined)
  }
}

/** Fields the mode does not allow: prices and costs in catalog mode, catalog fields in prices mode. */
export const modeViolations = (mode: UpsertMode, parts: BodyParts): ReadonlyArray<Issue> => {
  switch (mode) {
    case "catalog":
      return [...parts.priceKeys, ...parts.costKeys].map((key) => ({
        path: `$.${key}`,
        message: `${key} cannot be written in catalog mode; use mode prices or combined`
      }))
    case "prices":
      return parts.catalogKeys.map((key) => ({
        path: `$.${key}`,
        message: `${key} cannot be written in prices mode, which changes price fields only; use mode catalog or combined`
      }))
    case "combined":
      return []
  }
}

/** The scopes a write needs. Creating a record always needs catalog:write. */
export const requiredWriteScopes = (mode: UpsertMode, parts: BodyParts, isCreate: boolean): ReadonlyArray<Scope> => {
  const needed = new Set<Scope>()
  if (mode === "prices") needed.add("prices:write")
  if (mode !== "prices" && (parts.catalogKeys.length > 0 || isCreate || (parts.priceKeys.length === 0 && parts.costKeys.length === 0))) {
    needed.add("catalog:write")
  }
  if (parts.priceKeys.length > 0 || parts.coefficient) needed.add("prices:write")
  if (parts.costKeys.length > 0) needed.add("costs:write")
  return Array.from(needed)
}

export const missingScopes = (required: ReadonlyArray<Scope>, held: ReadonlySet<Scope>): ReadonlyArray<Scope> =>
  required.filter((scope) => !held.has(scope))

export type ReadMode = "catalog" | "prices"

/** Removes what the caller may not see from a stored document. */
export const visibleDocument = (
  definition: ResourceDefinition,
  document: Document,
  scopes: ReadonlySet<Scope>,
  mode: ReadMode
): Document => {
  const seePrices = scopes.has("prices:read")
  const seeCosts = scopes.has("costs:read")
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(document)) {
    const isPrice = definition.priceKeys.includes(key)
    const isCost = definition.costKeys.includes(key)
    if (isPrice && !seePrices) continue
    if (isCost && !seeCosts) continue
    if (mode === "prices" && !isPrice && !isCost) continue
    out[key] =
      key === "fields" && !seePrices
        ? (value as ReadonlyArray<Document>).map(({ coefficient: _hidden, ...field }) => field)
        : value
  }
  return out
}
