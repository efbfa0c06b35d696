import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { AuditLog, makeRecorder } from "../Audit/AuditLog.js"
import { decodeStrict } from "../Catalog/Decode.js"
import { characters, matching, NameText } from "../internal/Shared/Text.js"
import { RecordNotFound, ValidationFailed } from "../Shared/Errors.js"
import { type CompanyId, Ids, UUID } from "../Shared/Ids.js"
import { Sha256 } from "../Shared/Sha256.js"
import { People } from "./People.js"
import { normalEmail, type PanelSession, PanelRole, type PanelUser, roleFitsCompany } from "./PanelUser.js"
import { PasswordHasher } from "./PasswordHasher.js"
import { SignInRefused, SignInThrottled } from "./PeopleErrors.js"
import { accountKey, addressKey, type FailureCount, retryAfterMillis, windowMillis } from "./SignInThrottle.js"

/** The shortest password, in characters. */
export const minPasswordLength = 12
/** The longest password, in characters: a bound on the work one sign-in can ask of the hash. */
export const maxPasswordLength = 1024

const Password = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      (characters(value) >= minPasswordLength && characters(value) <= maxPasswordLength) ||
      `must be ${minPasswordLength}-${maxPasswordLength} characters`
  )
)

const Email = Schema.String.check(
  matching(/^(?=.{3,254}$)[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an email address (name@example.com)")
)

/** A new panel user. `company_id` is left out (or null) for an administrator and required for the others. */
export const UserInput = Schema.Struct({
  email: Email,
  name: NameText(1, 200),
  password: Password,
  role: PanelRole,
  company_id: Schema.optionalKey(Schema.NullOr(UUID))
})

/** How long a session lives: idle minutes since the last request, and hours since sign-in at most. */
export interface SessionLimits {
  readonly idleMinutes: number
  readonly maxHours: number
}
/** `PANEL_SESSION_IDLE_MINUTES` and `PANEL_SESSION_MAX_HOURS`; 30 minutes idle and 12 hours unless provided. */
export const SessionLimits = Context.Reference<SessionLimits>("@catalog-sync/core/People/SessionLimits", {
  defaultValue: () => ({ idleMinutes: 30, maxHours: 12 })
})

/** A session's last-seen time is written at most this often, not on every request. */
export const touchEveryMillis = 60_000

/** What a sign-in form posts; `address` is the client's, `replacing` the token of the cookie it came with. */
export interface SignInInput {
  readonly email: string
  readonly password: string
  readonly address: string | null
  readonly replacing?: string | undefined
}

/** A successful sign-in: the token for the cookie (given here only), the user and the new session. */
export interface SignedIn {
  readonly token: string
  readonly user: PanelUser
  readonly session: PanelSession
}

const randomToken = (): string => {
  let binary = ""
  for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(32))) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** 32 random bytes, base64url: anything else is not a token of ours and is not looked up. */
const tokenShape = /^[A-Za-z0-9_-]{43}$/

const refused = () => new SignInRefused({ message: "the email or the password is wrong" })

const notFound = (id: string) => new RecordNotFound({ resource: "users", message: `no user ${id}` })

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * Panel users and their sessions: creating and disabling people, signing in (throttled per account and
 * per address, counted in the store so every instance agrees), finding the signed-in user of a request,
 * signing out. Every change is recorded in the audit log by the current `Actor`.
 */
export class PeopleAdmin extends Context.Service<PeopleAdmin>()("@catalog-sync/core/PeopleAdmin", {
  make: Effect.gen(function* () {
    const people = yield* People
    const hasher = yield* PasswordHasher
    const accounts = yield* Accounts
    const ids = yield* Ids
    const sha256 = yield* Sha256
    const limits = yield* SessionLimits
    const audited = makeRecorder(yield* AuditLog, ids)
    // An unknown email is checked against this, so that it costs what a known one does.
    const dummyHash = yield* Effect.cached(hasher.hash(randomToken()))

    const user = (id: string) =>
      people
        .getUser(id)
        .pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed })))

    const createUser = (input: unknown) =>
      Effect.gen(function* () {
        const normalised =
          typeof input === "object" && input !== null && "email" in input && typeof input.email === "string"
            ? { ...input, email: normalEmail(input.email) }
            : input
        const fields = yield* Effect.fromResult(decodeStrict(UserInput, normalised, "the user"))
        const companyId = fields.company_id ?? null
        if (!roleFitsCompany(fields.role, companyId)) {
          return yield* new ValidationFailed({
            message: "the user is not valid",
            issues: [
              {
                path: "$.company_id",
                message:
                  fields.role === "admin"
                    ? "an administrator belongs to no company"
                    : "an owner or manager belongs to one company"
              }
            ]
          })
        }
        if (companyId !== null && Option.isNone(yield* accounts.getCompany(companyId))) {
          return yield* new RecordNotFound({ resource: "companies", message: `no company ${companyId}` })
        }
        const created: PanelUser = {
          id: yield* ids.next,
          email: fields.email,
          name: fields.name,
          role: fields.role,
          company_id: companyId as CompanyId | null,
          enabled: true,
          created_at: iso(yield* Clock.currentTimeMillis)
        }
        const passwordHash = yield* hasher.hash(fields.password)
        yield* audited(people.insertUser(created, passwordHash), () => ({
          action: "user.create",
          company_id: created.company_id,
          target: created.id,
          details: { email: created.email, role: created.role }
        }))
        return created
      })

    const signIn = (input: SignInInput) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const email = normalEmail(input.email)
        // A failure counts for `windowMillis` exactly: at `at + windowMillis` it has left the window.
        const since = now - windowMillis + 1
        const keys = input.address === null ? [accountKey(email)] : [accountKey(email), addressKey(input.address)]
        const failures = Effect.gen(function* () {
          return {
            account: yield* people.countFailures(accountKey(email), since),
            address: input.address === null ? null : yield* people.countFailures(addressKey(input.address), since)
          }
        })
        const throttled = (wait: number) =>
          new SignInThrottled({
            message: "too many failed sign-ins; try again later",
            retryAfterSeconds: Math.ceil(wait / 1000)
          })
        const waitNow = retryAfterMillis(yield* failures, now)
        if (waitNow > 0) return yield* throttled(waitNow)
        // The attempt counts itself as a failure before the password is checked, then counts again: of
        // attempts sent at once (each passed the check above before any had failed), only those within the
        // limits go on; the others take their count back and are throttled.
        yield* people.recordFailure(keys, now, since)
        const claimed = yield* failures
        const others = (count: FailureCount): FailureCount => ({ ...count, count: count.count - 1 })
        const waitClaimed = retryAfterMillis(
          { account: others(claimed.account), address: claimed.address === null ? null : others(claimed.address) },
          now
        )
        if (waitClaimed > 0) {
          yield* people.forgetFailure(keys, now)
          return yield* throttled(waitClaimed)
        }
        const failed = Effect.fail(refused())
        // A password no account can have is refused before any lookup: the cost does not depend on the email.
        if (input.password.length > maxPasswordLength * 2) return yield* failed
        // Made by the first sign-in whatever its email, so that this one costs no more for an unknown email.
        const dummy = yield* dummyHash
        const found = yield* people.findUserByEmail(email)
        const verified = yield* Option.match(found, {
          onNone: () => Effect.as(hasher.verify(input.password, dummy), false),
          onSome: ({ passwordHash }) => hasher.verify(input.password, passwordHash)
        })
        if (!verified || Option.isNone(found) || !found.value.user.enabled) return yield* failed
        const signedIn = found.value.user
        // Not a failure after all: the account's failures end here, the address keeps its others.
        yield* people.clearFailures(accountKey(email))
        if (input.address !== null) yield* people.forgetFailure([addressKey(input.address)], now)
        // Rotation: the session of the cookie the form came with (if any) ends here.
        if (input.replacing !== undefined && tokenShape.test(input.replacing)) {
          yield* people.deleteSession(yield* sha256.hash(input.replacing))
        }
        const token = randomToken()
        const session: PanelSession = {
          id: yield* sha256.hash(token),
          user_id: signedIn.id,
          csrf_token: randomToken(),
          created_at: iso(now),
          last_seen_at: iso(now),
          expires_at: iso(now + limits.maxHours * 3_600_000),
          address: input.address
        }
        yield* audited(
          people.insertSession(session),
          () => ({ action: "session.sign_in", company_id: signedIn.company_id, target: signedIn.id }),
          { label: signedIn.email, userId: signedIn.id, address: input.address }
        )
        return { token, user: signedIn, session } satisfies SignedIn
      })

    const authenticate = (token: string) =>
      Effect.gen(function* () {
        if (!tokenShape.test(token)) return Option.none()
        const id = yield* sha256.hash(token)
        const found = yield* people.findSession(id)
        if (Option.isNone(found)) return Option.none()
        const { session, user: owner } = found.value
        const now = yield* Clock.currentTimeMillis
        const lastSeen = Date.parse(session.last_seen_at)
        if (!owner.enabled || now >= Date.parse(session.expires_at) || now >= lastSeen + limits.idleMinutes * 60_000) {
          yield* people.deleteSession(id)
          return Option.none()
        }
        if (now - lastSeen < touchEveryMillis) return Option.some({ user: owner, session })
        yield* people.touchSession(id, iso(now))
        return Option.some({ user: owner, session: { ...session, last_seen_at: iso(now) } })
      })

    const signOut = (token: string) =>
      Effect.gen(function* () {
        if (!tokenShape.test(token)) return
        const id = yield* sha256.hash(token)
        const found = yield* people.findSession(id)
        if (Option.isNone(found)) return
        const { user: owner } = found.value
        yield* audited(
          people.deleteSession(id),
          () => ({ action: "session.sign_out", company_id: owner.company_id, target: owner.id }),
          { label: owner.email, userId: owner.id, address: found.value.session.address }
        )
      })

    const signOutEverywhere = (userId: string) =>
      Effect.gen(function* () {
        const owner = yield* user(userId)
        return yield* audited(people.deleteSessionsOf(owner.id), (ended) => ({
          action: "session.sign_out_everywhere",
          company_id: owner.company_id,
          target: owner.id,
          details: { sessions: String(ended) }
        }))
      })

    const setUserEnabled = (id: string, enabled: boolean) =>
      Effect.gen(function* () {
        const current = yield* user(id)
        const write = Effect.andThen(
          people.setUserEnabled(current.id, enabled),
          enabled ? Effect.void : people.deleteSessionsOf(current.id)
        )
        yield* audited(write, () => ({
          action: enabled ? "user.enable" : "user.disable",
          company_id: current.company_id,
          target: current.id
        }))
        return { ...current, enabled }
      })

    /** Sets a new password and ends every session of the user. */
    const setPassword = (id: string, password: string) =>
      Effect.gen(function* () {
        yield* Effect.fromResult(decodeStrict(Schema.Struct({ password: Password }), { password }, "the password"))
        const current = yield* user(id)
        const passwordHash = yield* hasher.hash(password)
        const write = Effect.andThen(
          people.setPasswordHash(current.id, passwordHash),
          people.deleteSessionsOf(current.id)
        )
        yield* audited(write, () => ({ action: "user.password", company_id: current.company_id, target: current.id }))
      })

    return {
      createUser,
      signIn,
      authenticate,
      signOut,
      signOutEverywhere,
      getUser: user,
      listUsers: (companyId: CompanyId | null) => people.listUsers(companyId),
      setUserEnabled,
      setPassword
    } as const
  })
}) {
  /** The service over its ports. */
  static readonly Default = Layer.effect(this, this.make)
}
