import { Context, Layer, Schema } from "effect"
import { ConnectionId } from "../Shared/Ids.js"
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
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@catalog-sync/core/CurrentPrincipal"
) {}

/** What an embedding application knows about its caller, for {@link make}. */
export interface PrincipalInput {
  /** The company the caller acts in; every read and write stays inside it. */
  readonly company: CompanySettings
  /**
   * The connection the caller's writes are attributed to (a uuid, any letter case): its external-id mappings, its
   * idempotency keys and the `origin_connection_id` of the changes it makes.
   */
  readonly connectionId: string
  /** What the caller may do. The application decides them; nothing intersects them with company grants. */
  readonly scopes: Iterable<Scope>
  /** Names the caller in job records and logs (default `"embedded"`); no key needs to exist. */
  readonly keyId?: string | undefined
  /** Whether the stock package and inventory module are active for the company (default false). */
  readonly stock?: boolean | undefined
}

/**
 * Builds the principal of a caller that an embedding application has authenticated itself, without an
 * API key (the HTTP API derives its principals from keys). Throws when `connectionId` is not a uuid.
 *
 * ```ts
 * const who = Principal.make({ company, connectionId, scopes: ["catalog:read", "catalog:write"] })
 * program.pipe(Effect.provideService(Principal.CurrentPrincipal, who))
 * ```
 */
export const make = (input: PrincipalInput): Principal => ({
  company: input.company,
  // Lowercase, the form every id is stored and compared in (a key's connection id is lowercase too).
  connectionId: Schema.decodeUnknownSync(ConnectionId, { reportInput: true })(input.connectionId.toLowerCase()),
  keyId: input.keyId ?? "embedded",
  scopes: new Set(input.scopes),
  features: { stock: input.stock ?? false }
})

/** {@link make} as a layer of {@link CurrentPrincipal}, for a program that acts for one caller. */
export const layer = (input: PrincipalInput): Layer.Layer<CurrentPrincipal> =>
  Layer.sync(CurrentPrincipal, () => make(input))
