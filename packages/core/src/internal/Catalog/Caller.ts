import { Effect } from "effect"
import type { Principal } from "../../Auth/Principal.js"
import { ScopeDenied } from "../../Shared/Errors.js"
import type { Scope } from "../../Shared/Scope.js"
import { missingScopes, type ReadMode } from "./Access.js"
import type { MappingScope } from "../../Catalog/Mappings.js"

/** The calling principal as the catalog use cases see it: the scopes it holds, the mappings it addresses. */

/** Fails with ScopeDenied naming the scopes of `required` that the principal does not hold. */
export const requireScopes = (principal: Principal, required: ReadonlyArray<Scope>) => {
  const missing = missingScopes(required, principal.scopes)
  return missing.length === 0
    ? Effect.void
    : Effect.fail(
        new ScopeDenied({ message: `this operation needs the scopes ${missing.join(", ")}`, required: missing })
      )
}

/** The scope a read in `mode` needs. */
export const readScope = (mode: ReadMode): Scope => (mode === "prices" ? "prices:read" : "catalog:read")

/** The principal's mapping namespace of `resource`: its company and connection. */
export const mappingScope = (principal: Principal, resource: MappingScope["resource"]): MappingScope => ({
  companyId: principal.company.id,
  connectionId: principal.connectionId,
  resource
})
