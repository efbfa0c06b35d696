import { Effect } from "effect"
import { CurrentPrincipal, type Principal } from "../../Auth/Principal.js"
import type { MappingScope } from "../../Catalog/Mappings.js"
import { ScopeDenied } from "../../Shared/Errors.js"
import type { CompanyId, ConnectionId } from "../../Shared/Ids.js"
import type { Scope } from "../../Shared/Scope.js"

/** Fails with ScopeDenied unless the principal holds `scope`. */
export const requireScope = (principal: Principal, scope: Scope) =>
  principal.scopes.has(scope)
    ? Effect.void
    : Effect.fail(new ScopeDenied({ message: `this operation needs the scope ${scope}`, required: [scope] }))

/** media:write (POST /media) or media:read, checked before the upload is read. */
export const authorize = (scope: "media:read" | "media:write") =>
  Effect.flatMap(CurrentPrincipal, (principal) => requireScope(principal, scope))

/** The namespace of a connection's media mappings (external_id -> media id). */
export const mediaScope = (companyId: CompanyId, connectionId: ConnectionId): MappingScope => ({
  companyId,
  connectionId,
  resource: "media"
})
