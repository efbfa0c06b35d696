import { expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import type { Company } from "../Auth/Company.js"
import { type AuditEntry, AuditLog } from "../Audit/AuditLog.js"
import type { PanelSession, PanelUser } from "../People/PanelUser.js"
import { People } from "../People/People.js"
import type { CompanyId } from "../Shared/Ids.js"

const uuid = () => globalThis.crypto.randomUUID()

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()

const company = (): Company => {
  const id = uuid() as CompanyId
  return {
    id,
    name: "Acme",
    currency: "EUR",
    main_language: "en",
    languages: ["en"],
    tax_model: "unconfigured",
    tax_rates: [],
    storage_slug: `slug-${id}`,
    enabled: true,
    subscription_active: true,
    stock_package: false,
    inventory_module: false,
    granted_scopes: [],
    domains: [],
    created_at: at(0)
  }
}

const user = (companyId: CompanyId | null, n = 0): PanelUser => ({
  id: uuid(),
  email: `person-${uuid()}@example.com`,
  name: `Person ${n}`,
  role: companyId === null ? "admin" : n % 2 === 0 ? "owner" : "manager",
  company_id: companyId,
  enabled: true,
  created_at: at(n)
})

const session = (owner: PanelUser, n = 0): PanelSession => ({
  id: uuid().replace(/-/g, "") + uuid().replace(/-/g, ""),
  user_id: owner.id,
  csrf_token: `csrf-${uuid()}`,
  created_at: at(n),
  last_seen_at: at(n),
  expires_at: at(n + 43_200),
  address: n % 2 === 0 ? "192.0.2.1" : null
})

const entry = (companyId: CompanyId | null, action: string): AuditEntry => ({
  id: uuid(),
  at: at(1),
  actor: "cli:tester",
  actor_user_id: null,
  company_id: companyId,
  action,
  target: uuid(),
  address: null,
  details: { scopes: "catalog:read,prices:read", empty: "" }
})

/**
 * The contract of the `People` and `AuditLog` ports, run by each adapter against its own layer (with
 * `Accounts`, whose companies the users belong to). Each test works in fresh ids and emails.
 */
export const runPeopleConformance = (name: string, ports: Layer.Layer<Accounts | People | AuditLog, unknown>) =>
  layer(ports, { timeout: 60_000 })(`People and AuditLog conformance: ${name}`, (it) => {
    const companyWithPeople = Effect.gen(function* () {
      const c = company()
      yield* (yield* Accounts).saveCompany(c)
      return c
    })

    it.effect("stores a user with the password hash, found by id and by email in any case", () =>
      Effect.gen(function* () {
        const people = yield* People
        const c = yield* companyWithPeople
        const owner = user(c.id)
        yield* people.insertUser(owner, "scrypt$hash")
        expect(Option.getOrThrow(yield* people.getUser(owner.id))).toEqual(owner)
        expect(Option.getOrThrow(yield* people.findUserByEmail(owner.email.toUpperCase()))).toEqual({
          user: owner,
          passwordHash: "scrypt$hash"
        })
        expect(Option.isNone(yield* people.getUser(uuid()))).toBe(true)
        expect(Option.isNone(yield* people.getUser("not a uuid"))).toBe(true)
        expect(Option.isNone(yield* people.findUserByEmail(`nobody-${uuid()}@example.com`))).toBe(true)
        const admin = user(null)
        yield* people.insertUser(admin, "h")
        expect(Option.getOrThrow(yield* people.getUser(admin.id))).toEqual(admin)
      })
    )

    it.effect("refuses a taken email, in any case, with AccountConflict", () =>
      Effect.gen(function* () {
        const people = yield* People
        const first = user(null)
        yield* people.insertUser(first, "h")
        const again = yield* Effect.flip(people.insertUser({ ...user(null), email: first.email.toUpperCase() }, "h"))
        expect(again).toMatchObject({ _tag: "AccountConflict", field: "email" })
      })
    )

    it.effect("lists a company's people in creation order, and every user with null", () =>
      Effect.gen(function* () {
        const people = yield* People
        const c = yield* companyWithPeople
        const other = yield* companyWithPeople
        const later = user(c.id, 2)
        const earlier = user(c.id, 1)
        const elsewhere = user(other.id, 0)
        for (const u of [later, earlier, elsewhere]) yield* people.insertUser(u, "h")
        expect(yield* people.listUsers(c.id)).toEqual([earlier, later])
        const everyone = (yield* people.listUsers(null)).map((u) => u.id)
        expect([earlier.id, later.id, elsewhere.id].every((id) => everyone.includes(id))).toBe(true)
      })
    )

    it.effect("enables, disables and sets a password; an unknown user answers false", () =>
      Effect.gen(function* () {
        const people = yield* People
        const u = user(null)
        yield* people.insertUser(u, "old")
        expect(yield* people.setUserEnabled(u.id, false)).toBe(true)
        expect(Option.getOrThrow(yield* people.getUser(u.id)).enabled).toBe(false)
        expect(yield* people.setPasswordHash(u.id, "new")).toBe(true)
        expect(Option.getOrThrow(yield* people.findUserByEmail(u.email)).passwordHash).toBe("new")
        expect(yield* people.setUserEnabled(uuid(), true)).toBe(false)
        expect(yield* people.setPasswordHash(uuid(), "x")).toBe(false)
      })
    )

    it.effect("disables a person unless they are their company's last enabled owner, also for two at once", () =>
      Effect.gen(function* () {
        const people = yield* People
        for (let round = 0; round < 5; round++) {
          const c = yield* companyWithPeople
          const [first, manager, second] = [user(c.id, 0), user(c.id, 1), user(c.id, 2)]
          const elsewhere = user((yield* companyWithPeople).id, 0)
          for (const u of [first, manager, second, elsewhere]) yield* people.insertUser(u, "h")
          // Two owners disable each other at the same moment: one of them stays enabled.
          const outcomes = yield* Effect.all(
            [people.disableKeepingAnOwner(first.id), people.disableKeepingAnOwner(second.id)],
            { concurrency: "unbounded" }
          )
          expect([...outcomes].sort()).toEqual(["disabled", "last_owner"])
          const owners = (yield* people.listUsers(c.id)).filter((u) => u.role === "owner" && u.enabled)
          expect(owners).toHaveLength(1)
          expect(yield* people.disableKeepingAnOwner(owners[0]!.id)).toBe("last_owner")
          expect(yield* people.disableKeepingAnOwner(manager.id)).toBe("disabled")
          expect(Option.getOrThrow(yield* people.getUser(manager.id)).enabled).toBe(false)
        }
        expect(yield* people.disableKeepingAnOwner(uuid())).toBe("not_found")
      })
    )

    it.effect("keeps sessions with their user; touches, deletes one, and deletes a user's all", () =>
      Effect.gen(function* () {
        const people = yield* People
        const u = user(null)
        const other = user(null)
        yield* people.insertUser(u, "h")
        yield* people.insertUser(other, "h")
        const [a, b, c] = [session(u, 0), session(u, 1), session(other, 0)]
        for (const s of [a, b, c]) yield* people.insertSession(s)
        expect(Option.getOrThrow(yield* people.findSession(b.id))).toEqual({ session: b, user: u })
        yield* people.touchSession(a.id, at(60))
        expect(Option.getOrThrow(yield* people.findSession(a.id)).session.last_seen_at).toBe(at(60))
        yield* people.setUserEnabled(u.id, false)
        expect(Option.getOrThrow(yield* people.findSession(a.id)).user.enabled).toBe(false)
        yield* people.deleteSession(b.id)
        expect(Option.isNone(yield* people.findSession(b.id))).toBe(true)
        expect(yield* people.deleteSessionsOf(u.id)).toBe(1)
        expect(Option.isNone(yield* people.findSession(a.id))).toBe(true)
        expect(Option.isSome(yield* people.findSession(c.id))).toBe(true)
        expect(yield* people.deleteSessionsOf(u.id)).toBe(0)
      })
    )

    it.effect("counts failures per key since a time, forgets old ones, and clears a key", () =>
      Effect.gen(function* () {
        const people = yield* People
        const account = `account:${uuid()}`
        const address = `address:${uuid()}`
        const base = 1_800_000_000_000
        yield* people.recordFailure([account, address], base, 0)
        yield* people.recordFailure([account], base + 1000, 0)
        yield* people.recordFailure([address], base + 2000, 0)
        expect(yield* people.countFailures(account, base)).toEqual({ count: 2, oldest: base })
        expect(yield* people.countFailures(account, base + 1)).toEqual({ count: 1, oldest: base + 1000 })
        expect(yield* people.countFailures(`account:${uuid()}`, 0)).toEqual({ count: 0, oldest: null })
        // Recording forgets every failure before `forgetBefore`.
        yield* people.recordFailure([`account:${uuid()}`], base + 3000, base + 1500)
        expect(yield* people.countFailures(account, 0)).toEqual({ count: 0, oldest: null })
        expect(yield* people.countFailures(address, 0)).toEqual({ count: 1, oldest: base + 2000 })
        yield* people.clearFailures(address)
        expect(yield* people.countFailures(address, 0)).toEqual({ count: 0, oldest: null })
        // Forgetting takes back one failure of each key at that time, never more, never another time's.
        yield* people.recordFailure([address], base + 4000, 0)
        yield* people.recordFailure([address], base + 4000, 0)
        yield* people.recordFailure([address], base + 5000, 0)
        yield* people.forgetFailure([address, `account:${uuid()}`], base + 4000)
        expect(yield* people.countFailures(address, 0)).toEqual({ count: 2, oldest: base + 4000 })
        yield* people.forgetFailure([address], base + 4000)
        yield* people.forgetFailure([address], base + 4000)
        expect(yield* people.countFailures(address, 0)).toEqual({ count: 1, oldest: base + 5000 })
      })
    )

    it.effect("clears the failures of the keys with a prefix, and no other key's", () =>
      Effect.gen(function* () {
        const people = yield* People
        const account = `account:${uuid()}`
        const base = 1_800_000_000_000
        yield* people.recordFailure([`${account}|192.0.2.1`, `${account}|2001:db8::/64`, account], base, 0)
        yield* people.recordFailure([`${account}|192.0.2.1`, `${account}}`, `${account}x|1`], base + 1, 0)
        expect(yield* people.clearFailuresWithPrefix(`${account}|`)).toBe(3)
        for (const kept of [account, `${account}}`, `${account}x|1`])
          expect((yield* people.countFailures(kept, 0)).count).toBe(1)
        expect((yield* people.countFailures(`${account}|192.0.2.1`, 0)).count).toBe(0)
        expect(yield* people.clearFailuresWithPrefix(`${account}|`)).toBe(0)
      })
    )

    it.effect("deletes ended sessions and old failures, at most a batch per call", () =>
      Effect.gen(function* () {
        const people = yield* People
        const u = user(null)
        yield* people.insertUser(u, "h")
        // Long before any other test's sessions and failures, so that only these are old enough.
        const t = -20_000_000
        const expired = { ...session(u, t), expires_at: at(t + 100) }
        const idle = { ...session(u, t), last_seen_at: at(t + 50), expires_at: at(1_000_000) }
        const live = { ...session(u, t), last_seen_at: at(t + 500), expires_at: at(1_000_000) }
        for (const s of [expired, idle, live]) yield* people.insertSession(s)
        const ended = { now: at(t + 200), idleSince: at(t + 100) }
        expect(yield* people.deleteEndedSessions(ended, 1)).toBe(1)
        expect(yield* people.deleteEndedSessions(ended, 10)).toBe(1)
        expect(yield* people.deleteEndedSessions(ended, 10)).toBe(0)
        for (const gone of [expired, idle]) expect(Option.isNone(yield* people.findSession(gone.id))).toBe(true)
        expect(Option.isSome(yield* people.findSession(live.id))).toBe(true)
        const key = `address:${uuid()}`
        for (const when of [1000, 1001, 1002, 5000]) yield* people.recordFailure([key], when, 0)
        expect(yield* people.deleteFailuresBefore(2000, 2)).toBe(2)
        expect(yield* people.deleteFailuresBefore(2000, 10)).toBe(1)
        expect(yield* people.countFailures(key, 0)).toEqual({ count: 1, oldest: 5000 })
      })
    )

    it.effect("appends an entry with its write, newest first by company, paged with before", () =>
      Effect.gen(function* () {
        const log = yield* AuditLog
        const c = yield* companyWithPeople
        const entries = ["company.create", "connection.create", "key.create", "key.revoke"].map((action) =>
          entry(c.id, action)
        )
        for (const e of entries) expect(yield* log.withEntry(Effect.succeed(e.action), () => e)).toBe(e.action)
        const platform = entry(null, "user.create")
        yield* log.withEntry(Effect.void, () => platform)
        const newest = [...entries].reverse()
        expect(yield* log.list({ companyId: c.id, limit: 10 })).toEqual(newest)
        expect(yield* log.list({ companyId: c.id, limit: 2, before: newest[1]!.id })).toEqual(newest.slice(2, 4))
        expect((yield* log.list({ limit: 1 }))[0]).toEqual(platform)
        expect(yield* log.list({ companyId: c.id, limit: 0 })).toEqual([])
      })
    )

    it.effect("a failed write appends nothing", () =>
      Effect.gen(function* () {
        const log = yield* AuditLog
        const c = yield* companyWithPeople
        const failed = yield* Effect.exit(log.withEntry(Effect.fail("refused"), () => entry(c.id, "key.create")))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(yield* log.list({ companyId: c.id, limit: 10 })).toEqual([])
      })
    )

    it.effect("the entry and the write are one: a user written with it is there when it is", () =>
      Effect.gen(function* () {
        const log = yield* AuditLog
        const people = yield* People
        const u = user(null)
        const e = entry(null, "user.create")
        yield* log.withEntry(people.insertUser(u, "h"), () => e)
        expect(Option.isSome(yield* people.getUser(u.id))).toBe(true)
        expect((yield* log.list({ limit: 50 })).some((x) => x.id === e.id)).toBe(true)
      })
    )
  })
