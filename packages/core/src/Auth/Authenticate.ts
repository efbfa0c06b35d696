import { Clock, type Context, Effect, Option } from "effect"
import { Accounts, type KeyGrant } from "./Accounts.js"
import { constantTimeEqual, parse, SecretHasher } from "./ApiKey.js"
import { DomainNotPermitted, Unauthenticated, type UnauthenticatedReason } from "./AuthErrors.js"
import { settingsOf } from "./Company.js"
import type { Principal } from "./Principal.js"
import { effective, type Scope } from "../Shared/Scope.js"
import type { PersistenceError } from "../Shared/Errors.js"

/** What a request presents to be authenticated. */
export interface Credentials {
  /** The Authorization header as sent, if any. */
  readonly authorization: string | undefined
  /** The Host the request came through, without port. */
  readonly host: string | undefined
}

/**
 * A key's expiry in epoch milliseconds, parsed once per key object: the accounts cache hands out the same
 * key until the account data changes, and every request asks.
 */
const expiries = new WeakMap<object, number>()
const expiryMillis = (key: Pick<KeyGrant["key"], "expires_at">): number => {
  let millis = expiries.get(key)
  if (millis === undefined) {
    millis = Date.parse(key.expires_at)
    expiries.set(key, millis)
  }
  return millis
}

/** Why access through a key has stopped (spec 5.4), or undefined while it stands. */
export const accessStopped = (
  grant: Pick<KeyGrant, "key" | "connection" | "company">,
  nowMillis: number
): { readonly reason: UnauthenticatedReason; readonly message: string } | undefined => {
  const { company, connection, key } = grant
  if (key.revoked_at !== null) return { reason: "key_revoked", message: `the API key was revoked at ${key.revoked_at}` }
  if (expiryMillis(key) <= nowMillis)
    return { reason: "key_expired", message: `the API key expired at ${key.expires_at}` }
  if (!connection.enabled) return { reason: "connection_disabled", message: "the key's connection is disabled" }
  if (!company.enabled) return { reason: "company_disabled", message: "the company's API access is disabled" }
  if (!company.subscription_active)
    return { reason: "subscription_inactive", message: "the company's subscription is not active" }
  return undefined
}

/**
 * The principal a key acts as. `scopes` are the key's own unless given (a job acts with the scopes it
 * was submitted with); either way the company's current grants bound them.
 */
export const principalOf = (
  grant: Pick<KeyGrant, "key" | "connection" | "company">,
  scopes: ReadonlyArray<Scope> = grant.key.scopes
): Principal => ({
  company: settingsOf(grant.company),
  connectionId: grant.connection.id,
  keyId: grant.key.id,
  scopes: effective(grant.company.granted_scopes, scopes),
  features: { stock: grant.company.stock_package && grant.company.inventory_module },
  key: { expiresAt: grant.key.expires_at, scopes: grant.key.scopes }
})

/** Why a key is refused. */
type Refused = Unauthenticated | DomainNotPermitted

const deny = (reason: UnauthenticatedReason, message: string) => Effect.fail(new Unauthenticated({ reason, message }))

/**
 * Turns a Bearer key into the request's principal. Unknown key ids and wrong secrets fail alike, so the
 * answer tells nothing about which keys exist; the key's state is disclosed only to its holder.
 */
export const authenticate = (credentials: Credentials) =>
  Effect.flatMap(Accounts, (accounts) =>
    Effect.flatMap(SecretHasher, (hasher) => authenticateWith(accounts, hasher)(credentials))
  )

/**
 * `authenticate` over given services: the HTTP edge builds it once, so that a request pays no context
 * lookups or copies for them.
 */
export const authenticateWith =
  (accounts: Context.Service.Shape<typeof Accounts>, hasher: Context.Service.Shape<typeof SecretHasher>) =>
  (credentials: Credentials): Effect.Effect<Principal, Refused | PersistenceError> =>
    // Combinators rather than a generator: every request that needs a key runs this, in the fewest steps.
    Effect.suspend(() => {
      const header = credentials.authorization
      if (header === undefined || header.trim() === "") {
        return deny("missing_credentials", "send Authorization: Bearer <API key>")
      }
      const match = /^Bearer ([^\s]+)$/i.exec(header.trim())
      if (match === null)
        return deny("invalid_credentials", "only Authorization: Bearer <API key> authorizes API calls")
      const parsed = parse(match[1]!)
      if (parsed === undefined) return deny("invalid_credentials", "the API key is not valid")
      // The custom-domain owner is read with the key, in the same lookup; it is checked after the key's state.
      const host = credentials.host?.toLowerCase()
      return Effect.flatMap(accounts.findKey(parsed.keyId, host), (found) =>
        Effect.flatMap(hasher.hash(parsed.secret), (presentedHash): Effect.Effect<Principal, Refused> => {
          if (Option.isNone(found) || !constantTimeEqual(presentedHash, found.value.secretHash)) {
            return deny("invalid_credentials", "the API key is not valid")
          }
          const grant = found.value
          return Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<Principal, Refused> => {
            const stopped = accessStopped(grant, now)
            if (stopped !== undefined) return deny(stopped.reason, stopped.message)
            const { company, domainOwner } = grant
            if (host !== undefined && Option.isSome(domainOwner) && domainOwner.value !== company.id) {
              return Effect.fail(
                new DomainNotPermitted({ message: `requests through ${credentials.host} must use that company's key` })
              )
            }
            return Effect.succeed(principalOfGrant(grant))
          })
        })
      )
    })

/**
 * The principal of a cached grant, built once per grant: the accounts cache hands out the same grant
 * object until the account data changes, and a request would otherwise rebuild the company settings and
 * the effective scope set every time.
 */
const principals = new WeakMap<object, Principal>()
const principalOfGrant = (grant: Pick<KeyGrant, "key" | "connection" | "company">): Principal => {
  let principal = principals.get(grant)
  if (principal === undefined) {
    principal = principalOf(grant)
    principals.set(grant, principal)
  }
  return principal
}
