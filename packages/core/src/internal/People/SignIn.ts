/**
 * Signing in: the password checked within the throttle's limits (`SignInThrottle`), every failure in the
 * audit log until a limit stops the attempts, and a new session for a right password.
 */
import { Clock, Effect, Option } from "effect"
import type { Recorder } from "../../Audit/AuditLog.js"
import type { Sha256 } from "../../Shared/Sha256.js"
import type { People } from "../../People/People.js"
import { normalEmail, type PanelSession, type PanelUser } from "../../People/PanelUser.js"
import type { PasswordHasher } from "../../People/PasswordHasher.js"
import { SignInRefused, SignInThrottled } from "../../People/PeopleErrors.js"
import {
  type Counter,
  countersOf,
  type FailureCount,
  retryAfterMillis,
  windowMillis
} from "../../People/SignInThrottle.js"

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

/** 32 random bytes, base64url: a session's token and its form token. */
export const randomToken = (): string => {
  let binary = ""
  for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(32))) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** The shape of `randomToken`'s tokens: anything else is not a token of ours and is not looked up. */
export const tokenShape = /^[A-Za-z0-9_-]{43}$/

/** The longest password, in characters: a bound on the work one sign-in can ask of the hash. */
export const maxPasswordLength = 1024

/** The longest email a failed sign-in's audit entry repeats (the longest an address can be). */
const loggedEmailLength = 254

const refused = () => new SignInRefused({ message: "the email or the password is wrong" })

const throttled = (wait: number) =>
  new SignInThrottled({
    message: "too many failed sign-ins; try again later",
    retryAfterSeconds: Math.ceil(wait / 1000)
  })

const iso = (millis: number) => new Date(millis).toISOString()

/** What signing in works with: the ports, the audit recorder, and the sessions' whole lifetime. */
export interface SignInDependencies {
  readonly people: People["Service"]
  readonly hasher: PasswordHasher["Service"]
  readonly sha256: Sha256
  readonly audited: Recorder
  readonly maxHours: number
}

/** The sign-in use case over its dependencies. */
export const makeSignIn = Effect.fnUntraced(function* ({
  audited,
  hasher,
  maxHours,
  people,
  sha256
}: SignInDependencies) {
  // An unknown email is checked against this, so that it costs what a known one does; made by the first
  // sign-in whatever its email, so that this one costs no more for an unknown email.
  const dummyHash = yield* Effect.cached(hasher.hash(randomToken()))

  const counted = (counters: ReadonlyArray<Counter>, since: number) =>
    Effect.forEach(counters, (counter) =>
      Effect.map(people.countFailures(counter.key, since), (failures) => ({ ...counter, failures }))
    )

  /** Records a wrong password: who was tried, from where, and the limits this failure reached. */
  const recordRefusal = (
    email: string,
    address: string | null,
    found: Option.Option<PanelUser>,
    reached: ReadonlyArray<Counter>
  ) =>
    audited(
      Effect.void,
      () => ({
        action: "session.sign_in_failed",
        company_id: Option.match(found, { onNone: () => null, onSome: (user) => user.company_id }),
        target: Option.match(found, { onNone: () => null, onSome: (user) => user.id }),
        details: {
          email: email.slice(0, loggedEmailLength),
          ...(reached.length === 0 ? {} : { throttled: reached.map((counter) => counter.name).join(",") })
        }
      }),
      { label: "anonymous", userId: null, address }
    )

  return (input: SignInInput) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const email = normalEmail(input.email)
      // A failure counts for `windowMillis` exactly: at `at + windowMillis` it has left the window.
      const since = now - windowMillis + 1
      const counters = countersOf(email, input.address)
      const keys = counters.map((counter) => counter.key)
      const waitNow = retryAfterMillis(yield* counted(counters, since), now)
      if (waitNow > 0) return yield* throttled(waitNow)
      // The attempt counts itself as a failure before the password is checked, then counts again: of
      // attempts sent at once (each passed the check above before any had failed), only those within the
      // limits go on; the others take their count back and are throttled.
      yield* people.recordFailure(keys, now, since)
      const claimed = yield* counted(counters, since)
      const others = (failures: FailureCount): FailureCount => ({ ...failures, count: failures.count - 1 })
      const waitClaimed = retryAfterMillis(
        claimed.map((counter) => ({ ...counter, failures: others(counter.failures) })),
        now
      )
      if (waitClaimed > 0) {
        yield* people.forgetFailure(keys, now)
        return yield* throttled(waitClaimed)
      }
      // With this failure counted, the limits it reached (the audit entry says so; the attempts after are not logged).
      const reached = claimed.filter((counter) => counter.failures.count >= counter.limit)
      // A password no account can have is refused before any lookup: the cost does not depend on the email.
      if (input.password.length > maxPasswordLength * 2) {
        yield* recordRefusal(email, input.address, Option.none(), reached)
        return yield* refused()
      }
      const dummy = yield* dummyHash
      const found = yield* people.findUserByEmail(email)
      const verified = yield* Option.match(found, {
        onNone: () => Effect.as(hasher.verify(input.password, dummy), false),
        onSome: ({ passwordHash }) => hasher.verify(input.password, passwordHash)
      })
      if (!verified || Option.isNone(found) || !found.value.user.enabled) {
        yield* recordRefusal(
          email,
          input.address,
          Option.map(found, ({ user }) => user),
          reached
        )
        return yield* refused()
      }
      const signedIn = found.value.user
      // Not a failure after all: the account's failures from this address end here; the address's and
      // the account's other counts keep their others.
      for (const counter of counters) {
        if (counter.name === "account_from_address") yield* people.clearFailures(counter.key)
        else yield* people.forgetFailure([counter.key], now)
      }
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
        expires_at: iso(now + maxHours * 3_600_000),
        address: input.address
      }
      yield* audited(
        people.insertSession(session),
        () => ({ action: "session.sign_in", company_id: signedIn.company_id, target: signedIn.id }),
        { label: signedIn.email, userId: signedIn.id, address: input.address }
      )
      return { token, user: signedIn, session } satisfies SignedIn
    })
})
