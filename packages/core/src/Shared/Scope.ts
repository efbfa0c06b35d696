import { Schema } from "effect"

/** A scope an API key may hold. */
export const Scope = Schema.Literals([
  "catalog:read",
  "catalog:write",
  "prices:read",
  "prices:write",
  "costs:read",
  "costs:write",
  "media:read",
  "media:write",
  "stock:read",
  "stock:write"
]).annotate({ identifier: "Scope" })
export type Scope = typeof Scope.Type

/** Every scope. */
export const all: ReadonlyArray<Scope> = Scope.literals

/** Effective scopes: what the company was granted and the key asks for, both. */
export const effective = (granted: Iterable<Scope>, keyScopes: Iterable<Scope>): ReadonlySet<Scope> => {
  const grants = new Set(granted)
  return new Set(Array.from(keyScopes).filter((scope) => grants.has(scope)))
}
