import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Admin } from "../src/Admin/AccountsAdmin.js"
import { Actor, AuditLog } from "../src/Audit/AuditLog.js"
import { type PanelRole, roleFitsCompany } from "../src/People/PanelUser.js"
import { People } from "../src/People/People.js"
import { PasswordHasher } from "../src/People/PasswordHasher.js"
import { PeopleAdmin, SessionLimits } from "../src/People/PeopleAdmin.js"
import {
  accountFromAddressLimit,
  accountLimit,
  addressLimit,
  retryAfterMillis,
  windowMillis
} from "../src/People/SignInThrottle.js"
import { IdsLive } from "../src/Shared/Ids.js"
import { InMemory } from "../src/testing.js"
import { prop } from "./properties.js"

/** A stand-in hasher that counts its verifications: the rules, not the KDF, are under test here. */
const verifications = { count: 0 }
const FakeHasher = Layer.succeed(PasswordHasher, {
  hash: (password) => Effect.succeed(`plain$${password}`),
  verify: (password, stored) =>
    Effect.sync(() => {
      verifications.count++
      return stored === `plain$${password}`
    })
})

const layer = () =>
  Layer.mergeAll(PeopleAdmin.Default, Admin.Default).pipe(
    Layer.provide(FakeHasher),
    Layer.provideMerge(InMemory.accountsLayer),
    Layer.provideMerge(InMemory.peopleLayer),
    Layer.provideMerge(IdsLive)
  )

const password = "correct horse battery"

const company = Effect.flatMap(Admin, (admin) =>
  admin.createCompany({
    name: "Acme",
    currency: "EUR",
    main_language: "en",
    storage_slug: "acme",
    granted_scopes: ["catalog:read"]
  })
)

const withPeople = <A, E>(body: Effect.Effect<A, E, PeopleAdmin | Admin | AuditLog | People>) =>
  body.pipe(Effect.provide(layer()))

const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) ? Exit.findErrorOption(exit) : Option.none()))

describe("creating panel users", () => {
  it.effect("stores the email trimmed and lower-cased, and refuses it again in any case", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const created = yield* people.createUser({ email: " Ada@Example.COM ", name: "Ada", password, role: "admin" })
        expect(created).toMatchObject({ email: "ada@example.com", role: "admin", company_id: null, enabled: true })
        const again = yield* failureOf(
          people.createUser({ email: "ADA@example.com", name: "Ada 2", password, role: "admin" })
        )
        expect(Option.getOrThrow(again)).toMatchObject({ _tag: "AccountConflict", field: "email" })
      })
    )
  )

  it.effect("refuses a bad email, a short or long password, and a role without its company", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const acme = yield* company
        const pathOf = (input: object) =>
          Effect.map(
            failureOf(people.createUser({ name: "X", password, role: "admin", email: "x@example.com", ...input })),
            (e) => {
              const error = Option.getOrThrow(e) as { _tag: string; issues?: ReadonlyArray<{ path: string }> }
              return `${error._tag} ${error.issues?.map((i) => i.path).join(",") ?? ""}`
            }
          )
        expect(yield* pathOf({ email: "not-an-email" })).toBe("ValidationFailed $.email")
        expect(yield* pathOf({ password: "short" })).toBe("ValidationFailed $.password")
        expect(yield* pathOf({ password: "x".repeat(1025) })).toBe("ValidationFailed $.password")
        expect(yield* pathOf({ company_id: acme.id })).toBe("ValidationFailed $.company_id")
        expect(yield* pathOf({ role: "owner" })).toBe("ValidationFailed $.company_id")
        expect(yield* pathOf({ role: "manager", company_id: "0190a4d2-0000-7000-8000-000000000000" })).toBe(
          "RecordNotFound "
        )
        const owner = yield* people.createUser({
          email: "o@acme.example",
          name: "O",
          password,
          role: "owner",
          company_id: acme.id
        })
        expect(owner.company_id).toBe(acme.id)
      })
    )
  )

  prop(
    "a role fits a company exactly when it is not the administrator's",
    [fc.constantFrom<PanelRole>("admin", "owner", "manager"), fc.option(fc.uuid(), { nil: null })],
    ([role, companyId]) => {
      expect(roleFitsCompany(role, companyId)).toBe((role === "admin") === (companyId === null))
    }
  )
})

const signUp = Effect.gen(function* () {
  const people = yield* PeopleAdmin
  return yield* people.createUser({ email: "ada@example.com", name: "Ada", password, role: "admin" })
})

describe("signing in", () => {
  it.effect("a right password gives a token that authenticates; a wrong one is refused", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        const signedIn = yield* people.signIn({ email: "ADA@example.com", password, address: "192.0.2.1" })
        expect(signedIn.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(signedIn.session.id).not.toContain(signedIn.token)
        expect(signedIn.session.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        const found = Option.getOrThrow(yield* people.authenticate(signedIn.token))
        expect(found.user.id).toBe(ada.id)
        const wrong = yield* failureOf(people.signIn({ email: ada.email, password: "wrong password!", address: null }))
        expect(Option.getOrThrow(wrong)._tag).toBe("SignInRefused")
        expect(Option.isNone(yield* people.authenticate("not a token"))).toBe(true)
      })
    )
  )

  it.effect("an unknown email is refused alike, after a password verification all the same", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        yield* signUp
        const before = verifications.count
        const unknown = yield* failureOf(people.signIn({ email: "nobody@example.com", password, address: null }))
        expect(Option.getOrThrow(unknown)).toMatchObject({ _tag: "SignInRefused" })
        expect(verifications.count).toBe(before + 1)
      })
    )
  )

  it.effect("a disabled user cannot sign in, and their sessions end", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        const { token } = yield* people.signIn({ email: ada.email, password, address: null })
        yield* people.setUserEnabled(ada.id, false)
        expect(Option.isNone(yield* people.authenticate(token))).toBe(true)
        const refused = yield* failureOf(people.signIn({ email: ada.email, password, address: null }))
        expect(Option.getOrThrow(refused)._tag).toBe("SignInRefused")
      })
    )
  )

  it.effect(
    "ten failures from one address throttle the account there, even with the right password, not elsewhere",
    () =>
      withPeople(
        Effect.gen(function* () {
          const people = yield* PeopleAdmin
          const ada = yield* signUp
          for (let i = 0; i < accountFromAddressLimit; i++) {
            yield* Effect.flip(
              people.signIn({ email: ada.email, password: `wrong password ${i}`, address: "198.51.100.9" })
            )
            yield* TestClock.adjust("10 seconds")
          }
          const throttled = Option.getOrThrow(
            yield* failureOf(people.signIn({ email: ada.email, password, address: "198.51.100.9" }))
          )
          expect(throttled).toMatchObject({ _tag: "SignInThrottled" })
          // The oldest failure leaves the window 15 minutes after it happened, 100 s ago.
          expect((throttled as { retryAfterSeconds: number }).retryAfterSeconds).toBe(15 * 60 - 100)
          // The account's owner, elsewhere, is not locked out by a stranger's guesses.
          const owner = yield* people.signIn({ email: ada.email, password, address: "203.0.113.9" })
          expect(owner.user.id).toBe(ada.id)
          yield* TestClock.adjust("800 seconds")
          const signedIn = yield* people.signIn({ email: ada.email, password, address: "198.51.100.9" })
          expect(signedIn.user.id).toBe(ada.id)
        })
      )
  )

  it.effect("guesses spread over many addresses throttle the account everywhere at its own, higher limit", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        for (let i = 0; i < accountLimit; i++) {
          const address = `198.18.${i >> 8}.${i & 255}`
          yield* Effect.flip(people.signIn({ email: ada.email, password: `wrong password ${i}`, address }))
        }
        const throttled = yield* failureOf(people.signIn({ email: ada.email, password, address: "203.0.113.9" }))
        expect(Option.getOrThrow(throttled)._tag).toBe("SignInThrottled")
        // An operator's unlock forgets the account's failures; the owner signs in at once.
        const log = yield* AuditLog
        const forgotten = yield* people
          .unlock(" ADA@example.com ")
          .pipe(Effect.provideService(Actor, { label: "cli:root", userId: null, address: null }))
        // Each wrong password once, though the throttle counts it for the account and its address too.
        expect(forgotten).toBe(accountLimit)
        const [unlocked] = yield* log.list({ limit: 1 })
        expect(unlocked).toMatchObject({
          action: "user.unlock",
          actor: "cli:root",
          target: ada.id,
          details: { email: ada.email, failures: String(accountLimit) }
        })
        expect((yield* people.signIn({ email: ada.email, password, address: "203.0.113.9" })).user.id).toBe(ada.id)
      })
    )
  )

  it.effect("each refused password is in the audit log until a limit stops the attempts", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const log = yield* AuditLog
        const acme = yield* company
        const owner = yield* people.createUser({
          email: "olga@example.com",
          name: "Olga",
          password,
          role: "owner",
          company_id: acme.id
        })
        for (let i = 0; i < accountFromAddressLimit + 5; i++)
          yield* Effect.flip(people.signIn({ email: owner.email, password: "wrong password", address: "192.0.2.5" }))
        const failed = (yield* log.list({ companyId: acme.id, limit: 100 })).filter(
          (entry) => entry.action === "session.sign_in_failed"
        )
        // Ten entries (newest first): the last one reached the limit; the five throttled attempts after it are not logged.
        expect(failed).toHaveLength(accountFromAddressLimit)
        expect(failed[0]).toMatchObject({
          actor: "anonymous",
          address: "192.0.2.5",
          target: owner.id,
          company_id: acme.id,
          details: { email: owner.email, throttled: "account_from_address" }
        })
        expect(failed.slice(1).every((entry) => entry.details["throttled"] === undefined)).toBe(true)
        // An unknown email's failures are the platform's, with no company.
        yield* Effect.flip(people.signIn({ email: "nobody@example.com", password, address: "192.0.2.6" }))
        const [unknown] = yield* log.list({ limit: 1 })
        expect(unknown).toMatchObject({
          action: "session.sign_in_failed",
          company_id: null,
          target: null,
          details: { email: "nobody@example.com" }
        })
      })
    )
  )

  it.effect("twenty failures from one address throttle it for every account, not other addresses", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        for (let i = 0; i < addressLimit; i++) {
          yield* Effect.flip(people.signIn({ email: `guess${i}@example.com`, password, address: "192.0.2.66" }))
        }
        const throttled = yield* failureOf(people.signIn({ email: ada.email, password, address: "192.0.2.66" }))
        expect(Option.getOrThrow(throttled)._tag).toBe("SignInThrottled")
        const elsewhere = yield* people.signIn({ email: ada.email, password, address: "192.0.2.67" })
        expect(elsewhere.user.id).toBe(ada.id)
      })
    )
  )

  prop(
    "the throttle waits exactly when a counter is at its limit, never longer than the window",
    [fc.nat({ max: 40 }), fc.nat({ max: 40 }), fc.nat({ max: windowMillis - 1 }), fc.nat({ max: windowMillis - 1 })],
    ([accountFailures, addressFailures, accountAge, addressAge]) => {
      const now = 10 * windowMillis
      const wait = retryAfterMillis(
        [
          {
            limit: accountFromAddressLimit,
            failures: { count: accountFailures, oldest: accountFailures === 0 ? null : now - accountAge }
          },
          {
            limit: addressLimit,
            failures: { count: addressFailures, oldest: addressFailures === 0 ? null : now - addressAge }
          }
        ],
        now
      )
      expect(wait > 0).toBe(accountFailures >= accountFromAddressLimit || addressFailures >= addressLimit)
      expect(wait).toBeLessThanOrEqual(windowMillis)
      if (accountFailures >= accountFromAddressLimit) expect(wait).toBeGreaterThanOrEqual(windowMillis - accountAge)
    }
  )
})

describe("sessions", () => {
  it.effect("end after 30 idle minutes; requests keep them alive, touching at most once a minute", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        const { session, token } = yield* people.signIn({ email: ada.email, password, address: null })
        yield* TestClock.adjust("30 seconds")
        const early = Option.getOrThrow(yield* people.authenticate(token))
        expect(early.session.last_seen_at).toBe(session.last_seen_at)
        yield* TestClock.adjust("29 minutes")
        const touched = Option.getOrThrow(yield* people.authenticate(token))
        expect(touched.session.last_seen_at).not.toBe(session.last_seen_at)
        yield* TestClock.adjust("29 minutes")
        expect(Option.isSome(yield* people.authenticate(token))).toBe(true)
        yield* TestClock.adjust("31 minutes")
        expect(Option.isNone(yield* people.authenticate(token))).toBe(true)
      })
    )
  )

  it.effect("end 12 hours after sign-in however busy", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        const { token } = yield* people.signIn({ email: ada.email, password, address: null })
        for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
          yield* TestClock.adjust("20 minutes")
          expect(Option.isSome(yield* people.authenticate(token))).toBe(true)
        }
        yield* TestClock.adjust("20 minutes")
        expect(Option.isNone(yield* people.authenticate(token))).toBe(true)
      })
    )
  )

  it.effect("the purge deletes ended sessions and failures out of the window, a batch at a time", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const port = yield* People
        const ada = yield* signUp
        const idle = yield* people.signIn({ email: ada.email, password, address: null })
        for (let i = 0; i < 3; i++)
          yield* Effect.flip(people.signIn({ email: ada.email, password: "wrong password", address: "192.0.2.8" }))
        yield* TestClock.adjust("20 minutes")
        // No session has ended yet; the failures (three counters each) are out of the 15-minute window and go.
        expect(yield* people.purgeExpired()).toEqual({ sessions: 0, failures: 9 })
        const live = yield* people.signIn({ email: ada.email, password, address: null })
        yield* TestClock.adjust("11 minutes")
        // The first session has been idle 31 minutes; the second 11.
        expect(yield* people.purgeExpired(1)).toEqual({ sessions: 1, failures: 0 })
        expect(yield* port.findSession(idle.session.id)).toEqual(Option.none())
        expect(Option.isSome(yield* port.findSession(live.session.id))).toBe(true)
        expect(yield* people.purgeExpired()).toEqual({ sessions: 0, failures: 0 })
      })
    )
  )

  it.effect("the limits come from SessionLimits", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin
      const ada = yield* signUp
      const { token } = yield* people.signIn({ email: ada.email, password, address: null })
      yield* TestClock.adjust("6 minutes")
      expect(Option.isNone(yield* people.authenticate(token))).toBe(true)
    }).pipe(Effect.provide(layer().pipe(Layer.provide(Layer.succeed(SessionLimits, { idleMinutes: 5, maxHours: 1 })))))
  )

  it.effect("a sign-in replaces the session it came with; sign-out and sign-out everywhere end them", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const ada = yield* signUp
        const first = yield* people.signIn({ email: ada.email, password, address: null })
        const second = yield* people.signIn({ email: ada.email, password, address: null, replacing: first.token })
        expect(Option.isNone(yield* people.authenticate(first.token))).toBe(true)
        const third = yield* people.signIn({ email: ada.email, password, address: null })
        yield* people.signOut(third.token)
        expect(Option.isNone(yield* people.authenticate(third.token))).toBe(true)
        expect(Option.isSome(yield* people.authenticate(second.token))).toBe(true)
        const fourth = yield* people.signIn({ email: ada.email, password, address: null })
        expect(yield* people.signOutEverywhere(ada.id)).toBe(2)
        expect(Option.isNone(yield* people.authenticate(second.token))).toBe(true)
        expect(Option.isNone(yield* people.authenticate(fourth.token))).toBe(true)
      })
    )
  )
})

describe("the audit log", () => {
  it.effect("records each admin change by the current actor, in its company, newest first", () =>
    withPeople(
      Effect.gen(function* () {
        const admin = yield* Admin
        const log = yield* AuditLog
        const acme = yield* company
        const connection = yield* admin.createConnection(acme.id, "ERP")
        yield* admin.renameConnection(connection.id, "ERP (main)")
        const { key, token } = yield* admin.createKey({
          connection_id: connection.id,
          scopes: ["catalog:read"],
          lifetime_days: 30
        })
        yield* admin.revokeKey(key.id)
        const entries = yield* log.list({ companyId: acme.id, limit: 10 })
        expect(entries.map((e) => e.action)).toEqual([
          "key.revoke",
          "key.create",
          "connection.rename",
          "connection.create",
          "company.create"
        ])
        expect(entries.every((e) => e.actor === "cli:ada" && e.company_id === acme.id)).toBe(true)
        expect(entries[2]!.details).toEqual({ from: "ERP", to: "ERP (main)" })
        expect(JSON.stringify(entries)).not.toContain(token)
        const page = yield* log.list({ companyId: acme.id, limit: 2, before: entries[1]!.id })
        expect(page.map((e) => e.action)).toEqual(["connection.rename", "connection.create"])
        // A failed write records nothing.
        yield* Effect.flip(admin.renameConnection(connection.id, ""))
        expect((yield* log.list({ companyId: acme.id, limit: 10 })).length).toBe(5)
      }).pipe(Effect.provideService(Actor, { label: "cli:ada", userId: null, address: null }))
    )
  )

  it.effect("a sign-in is recorded by the user signing in, with the address", () =>
    withPeople(
      Effect.gen(function* () {
        const people = yield* PeopleAdmin
        const log = yield* AuditLog
        const ada = yield* signUp
        yield* people.signIn({ email: ada.email, password, address: "192.0.2.1" })
        const [latest, created] = yield* log.list({ limit: 2 })
        expect(latest).toMatchObject({
          action: "session.sign_in",
          actor: ada.email,
          actor_user_id: ada.id,
          address: "192.0.2.1"
        })
        expect(created).toMatchObject({ action: "user.create", actor: "system", target: ada.id })
      })
    )
  )
})
