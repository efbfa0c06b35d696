import { Clock, Effect, Option } from "effect"
import { Accounts } from "./Accounts.js"
import { constantTimeEqual, parse, SecretHasher } from "./ApiKey.js"
import { DomainNotPermitted, Unauthenticated, type UnauthenticatedReason } from "./AuthErrors.js"
import { settingsOf } from "./Company.js"
import type { Principal } from "./Principal.js"
import { effective } from "../Shared/Scope.js"

export interface Credentials {
  /** The Authorization header as sent, if any. */
  readonly authorization: string | undefined
  /** The Host the request came through, without port. */
  readonly host: string | undefined
}

const deny = (reason: UnauthenticatedReason, message: string) => Effect.fail(new Unauthenticated({ reason, message }))

/**
 * Turns a Bearer key into the request's principal. Unknown key ids and wrong secrets fail alike, so the
 * answer tells nothing about which keys exist; the key's state is disclosed only to its holder.
 */
export const authenticate = (credentials: Credentials) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const header = credentials.authorization
    if (header === undefined || header.trim() === "") {
      return yield* deny("missing_credentials", "send Authorization: Bearer <API key>")
    }
    const match = /^Bearer ([^\s]+)$/i.exec(header.trim())
    if (match === null) return yield* deny("invalid_credentials", "only Authorization: Bearer <API key> authorizes API calls")
    const parsed = parse(match[1]!)
    if (parsed === undefined) return yield* deny("invalid_credentials", "the API key is not valid")
    // The custom-domain owner is read with the key, in the same lookup; it is checked after the key's state.
    const host = credentials.host?.toLowerCase()
    const found = yield* accounts.findKey(parsed.keyId, host)
    const presentedHash = yield* (yield* SecretHasher).hash(parsed.secret)
    if (Option.isNone(found) || !constantTimeEqual(presentedHash, found.value.secretHash)) {
      return yield* deny("invalid_credentials", "the API key is not valid")
    }
    const { company, connection, domainOwner, key } = found.value
    const now = yield* Clock.currentTimeMillis
    if (key.revoked_at !== null) return yield* deny("key_revoked", `the API key was revoked at ${key.revoked_at}`)
    if (Date.parse(key.expires_at) <= now) return yield* deny("key_expired", `the API key expired at ${key.expires_at}`)
    if (!connection.enabled) return yield* deny("connection_disabled", "the key's connection is disabled")
    if (!company.enabled) return yield* deny("company_disabled", "the company's API access is disabled")
    if (!company.subscription_active) return yield* deny("subscription_inactive", "the company's subscription is not active")
    if (host !== undefined && Option.isSome(domainOwner) && domainOwner.value !== company.id) {
      return yield* new DomainNotPermitted({ message: `requests through ${credentials.host} must use that company's key` })
    }
    return {
      company: settingsOf(company),
      connectionId: connection.id,
      keyId: key.id,
      scopes: effective(company.granted_scopes, key.scopes),
      features: { stock: company.stock_package && company.inventory_module }
    } satisfies Principal
  })
