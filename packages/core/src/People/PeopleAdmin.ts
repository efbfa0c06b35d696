import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { AuditLog, makeRecorder } from "../Audit/AuditLog.js"
import { decodeStrict } from "../Catalog/Decode.js"
import { characters, matching, NameText } from "../internal/Shared/Text.js"
import { RecordNotFound, ValidationFailed } from "../Shared/Errors.js"
import { type CompanyId, Ids, UUID } from "../Shared/Ids.js"
import { Sha256 } from "../Shared/Sha256.js"
import { People } from "./People.js"
import { normalEmail, PanelRole, type PanelUser, roleFitsCompany } from "./PanelUser.js"
import { PasswordHasher } from "./PasswordHasher.js"
import { LastEnabledOwner } from "./PeopleErrors.js"
import { makeSignIn, maxPasswordLength, tokenShape } from "../internal/People/SignIn.js"
import { accountFromAddressPrefix, accountKey, windowMillis } from "./SignInThrottle.js"

export { maxPasswordLength } from "../internal/People/SignIn.js"
export type { SignedIn, SignInInput } from "../internal/People/SignIn.js"

/** The shortest password, in characters. */
export const minPasswordLength = 12

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

/** The most ended sessions, and the most old sign-in failures, one purge deletes. */
export const purgeBatch = 1000

/** A session's last-seen time is written at most this often, not on every request. */
export const touchEveryMillis = 60_000

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

    const signIn = yield* makeSignIn({ people, hasher, sha256, audited, maxHours: limits.maxHours })

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

    /**
     * Enables or disables a user (a disabled one's sessions end). With `keepAnOwner`, a company's last
     * enabled owner is not disabled (`LastEnabledOwner`), checked in the write itself so that two owners
     * disabling each other at once leave one.
     */
    const setUserEnabled = (id: string, enabled: boolean, options: { readonly keepAnOwner?: boolean } = {}) =>
      Effect.gen(function* () {
        const current = yield* user(id)
        const disable = options.keepAnOwner
          ? Effect.flatMap(people.disableKeepingAnOwner(current.id), (outcome) =>
              outcome === "last_owner"
                ? Effect.fail(
                    new LastEnabledOwner({
                      message: "this is the company's last enabled owner; add or enable another owner first"
                    })
                  )
                : Effect.void
            )
          : people.setUserEnabled(current.id, false)
        const write = enabled
          ? Effect.asVoid(people.setUserEnabled(current.id, true))
          : Effect.asVoid(Effect.andThen(disable, people.deleteSessionsOf(current.id)))
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

    /**
     * Forgets the failed sign-ins of the account with `email` (from every address), so its owner can sign
     * in again at once; the addresses' own counts stay. Returns how many failures were forgotten.
     */
    const unlock = (email: string) =>
      Effect.gen(function* () {
        const normal = normalEmail(email)
        const found = yield* people.findUserByEmail(normal)
        // Every failure is counted under the account's key and again under its key per address: the
        // account's own count is the number of wrong passwords, the per-address rows repeat them.
        const forget = Effect.gen(function* () {
          const account = yield* people.countFailures(accountKey(normal), 0)
          yield* people.clearFailures(accountKey(normal))
          yield* people.clearFailuresWithPrefix(accountFromAddressPrefix(normal))
          return account.count
        })
        return yield* audited(forget, (forgotten) => ({
          action: "user.unlock",
          company_id: Option.match(found, { onNone: () => null, onSome: ({ user }) => user.company_id }),
          target: Option.match(found, { onNone: () => null, onSome: ({ user }) => user.id }),
          details: { email: normal, failures: String(forgotten) }
        }))
      })

    /**
     * Deletes ended sessions and the failures that have left the throttle's window, at most
     * `batch` of each: run by the server's upkeep, a backlog is worked off over several runs.
     */
    const purgeExpired = (batch = purgeBatch) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const sessions = yield* people.deleteEndedSessions(
          { now: iso(now), idleSince: iso(now - limits.idleMinutes * 60_000) },
          batch
        )
        const failures = yield* people.deleteFailuresBefore(now - windowMillis, batch)
        return { sessions, failures }
      })

    return {
      unlock,
      purgeExpired,
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
