import { Context } from "effect"
import type { ConnectionId } from "../Shared/Ids.js"
import type { Scope } from "../Shared/Scope.js"
import type { CompanySettings } from "./Company.js"

/** Who is calling: derived from the API key, never from anything the client sends. */
export interface Principal {
  readonly company: CompanySettings
  readonly connectionId: ConnectionId
  readonly keyId: string
  /** Company grants ∩ key scopes, evaluated on each request. */
  readonly scopes: ReadonlySet<Scope>
  /** Stock features need an active stock package and an enabled inventory module. */
  readonly features: { readonly stock: boolean }
  /** The key as issued, when the principal comes from a presented key (GET /me shows it). */
  readonly key?: { readonly expiresAt: string; readonly scopes: ReadonlyArray<Scope> } | undefined
}

/** The request's principal, provided by the authentication middleware. */
export class CurrentPrincipal extends Context.Tag("@catalog-sync/core/CurrentPrincipal")<
  CurrentPrincipal,
  Principal
>() {}
