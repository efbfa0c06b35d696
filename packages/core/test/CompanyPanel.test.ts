/**
 * CompanyPanel's authorization: an owner or manager reaches only their company (another's ids fail as
 * PanelForbidden, which the panel shows as "not found"), a manager not its people or audit log, only an
 * administrator the companies and their grants; and every change is recorded with the caller as actor.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Effect, Exit, Layer, Option } from "effect"
import { AuditLog } from "../src/Audit/AuditLog.js"
import { Admin } from "../src/Admin/AccountsAdmin.js"
import { JobAdmin } from "../src/Admin/JobAdmin.js"
import { CompanyPanel } from "../src/Panel/CompanyPanel.js"
import type { PanelCaller } from "../src/Panel/PanelAccess.js"
import type { PanelRole, PanelUser } from "../src/People/PanelUser.js"
import { PasswordHasher } from "../src/People/PasswordHasher.js"
import { People } from "../src/People/People.js"
import { PeopleAdmin } from "../src/People/PeopleAdmin.js"
import * as InMemoryRateLimiter from "../src/RateLimit/InMemoryRateLimiter.js"
import { keyBucket, perKeyPerMinute, RateLimiter } from "../src/RateLimit/RateLimiter.js"
import { IdsLive } from "../src/Shared/Ids.js"
import { InMemory, InMemoryJobs, InMemoryMedia } from "../src/testing.js"

const PlainHasher = Layer.succeed(PasswordHasher, {
  hash: (password) => Effect.succeed(`plain$${password}`),
  verify: (password, stored) => Effect.succeed(stored === `plain$${password}`)
})

const layer = () =>
  CompanyPanel.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(Admin.Default, PeopleAdmin.Default, JobAdmin.Default)),
    Layer.provide(PlainHasher),
    Layer.provideMerge(Layer.mergeAll(InMemory.accountsLayer, InMemory.peopleLayer, InMemoryRateLimiter.layer)),
    Layer.provide(
      Layer.mergeAll(InMemory.layer, InMemory.idempotencyLayer, InMemoryJobs.layer, InMemoryMedia.storageLayer)
    ),
    Layer.provideMerge(IdsLive)
  )

type Operation = (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>

/** The in-memory People with a yield before every call: concurrent use cases interleave at each step. */
const InterleavedPeople = Layer.effectContext(
  Effect.gen(function* () {
    const people = yield* People
    const interleaved = Object.fromEntries(
      Object.entries(people).map(([name, operation]) => [
        name,
        (...args: ReadonlyArray<unknown>) => Effect.andThen(Effect.yieldNow, (operation as Operation)(...args))
      ])
    ) as unknown as People["Service"]
    return Context.make(People, interleaved).pipe(Context.add(AuditLog, yield* AuditLog))
  })
).pipe(Layer.provide(InMemory.peopleLayer))

/** `layer()` whose People port lets other fibers run before each call. */
const interleavedLayer = () =>
  CompanyPanel.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(Admin.Default, PeopleAdmin.Default, JobAdmin.Default)),
    Layer.provide(PlainHasher),
    Layer.provideMerge(Layer.mergeAll(InMemory.accountsLayer, InterleavedPeople, InMemoryRateLimiter.layer)),
    Layer.provide(
      Layer.mergeAll(InMemory.layer, InMemory.idempotencyLayer, InMemoryJobs.layer, InMemoryMedia.storageLayer)
    ),
    Layer.provideMerge(IdsLive)
  )

const password = "correct horse battery"

const tagOf = (effect: Effect.Effect<unknown, unknown>) =>
  Effect.map(Effect.exit(effect), (exit) =>
    Exit.isFailure(exit)
      ? Option.match(Exit.findErrorOption(exit), {
          onNone: () => "defect",
          onSome: (e) => (e as { _tag: string })._tag
        })
      : "success"
  )

/** Two companies, each with a connection, a key and a location, and their people; an administrator. */
const setup = Effect.gen(function* () {
  const admin = yield* Admin
  const people = yield* PeopleAdmin
  const user = (role: PanelRole, companyId: string | null, name: string) =>
    people.createUser({
      email: `${name}@example.com`,
      name,
      password,
      role,
      ...(companyId === null ? {} : { company_id: companyId })
    })
  const company = (slug: string) =>
    Effect.gen(function* () {
      const made = yield* admin.createCompany({
        name: slug,
        currency: "EUR",
        main_language: "en",
        storage_slug: slug,
        granted_scopes: ["catalog:read"]
      })
      const connection = yield* admin.createConnection(made.id, "ERP")
      const key = yield* admin.createKey({ connection_id: connection.id, scopes: ["catalog:read"], lifetime_days: 30 })
      const location = yield* admin.createLocation(made.id, "Depot")
      return { id: made.id, connection: connection.id, key: key.key.id, location: location.id }
    })
  const a = yield* company("alpha")
  const b = yield* company("beta")
  const as = (user: PanelUser): PanelCaller => ({ user, address: "192.0.2.1" })
  return {
    a,
    b,
    admin: as(yield* user("admin", null, "ada")),
    ownerA: as(yield* user("owner", a.id, "otto")),
    managerA: as(yield* user("manager", a.id, "manny")),
    ownerB: yield* user("owner", b.id, "bea")
  }
})

describe("CompanyPanel", () => {
  it.effect("an owner of A fails with PanelForbidden on every use case given B's ids, and B is unchanged", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, b, ownerA, ownerB } = yield* setup
      const attempts: Record<string, Effect.Effect<unknown, unknown>> = {
        company: panel.company(ownerA, b.id),
        overview: panel.overview(ownerA, b.id),
        people: panel.listPeople(ownerA, b.id),
        createPerson: panel.createPerson(ownerA, b.id, { email: "i@example.com", name: "I", password, role: "owner" }),
        disablePerson: panel.setPersonEnabled(ownerA, a.id, ownerB.id, false),
        createConnection: panel.createConnection(ownerA, b.id, "X"),
        rename: panel.renameConnection(ownerA, a.id, b.connection, "X"),
        renameB: panel.renameConnection(ownerA, b.id, b.connection, "X"),
        disable: panel.setConnectionEnabled(ownerA, a.id, b.connection, false),
        location: panel.createLocation(ownerA, b.id, "X"),
        page: panel.connectionPage(ownerA, a.id, b.connection),
        createKey: panel.createKey(
          ownerA,
          a.id,
          b.connection,
          { name: "", scopes: ["catalog:read"], lifetime_days: 30 },
          "a-fresh-form-nonce"
        ),
        revokeKey: panel.revokeKey(ownerA, a.id, a.connection, b.key),
        assign: panel.assignLocation(ownerA, a.id, a.connection, b.location, true),
        unassign: panel.unassignLocation(ownerA, a.id, b.connection, b.location),
        unassignB: panel.unassignLocation(ownerA, b.id, b.connection, b.location),
        unassignOther: panel.unassignLocation(ownerA, a.id, a.connection, b.location),
        job: panel.job(ownerA, a.id, a.connection, "00000000-0000-0000-0000-000000000000"),
        audit: panel.auditLog(ownerA, b.id),
        auditAll: panel.auditLog(ownerA, null),
        companies: panel.companies(ownerA),
        createCompany: panel.createCompany(ownerA, {
          name: "X",
          currency: "EUR",
          main_language: "en",
          storage_slug: "xx"
        }),
        updateOwn: panel.updateCompany(ownerA, a.id, { name: "X" }),
        scopesOwn: panel.setScopes(ownerA, a.id, ["catalog:write"])
      }
      for (const [name, attempt] of Object.entries(attempts))
        expect([name, yield* tagOf(attempt)]).toEqual([name, "PanelForbidden"])
      const admin = yield* Admin
      expect((yield* admin.listConnections(b.id)).map((c) => [c.name, c.enabled])).toEqual([["ERP", true]])
      expect((yield* admin.listKeys(b.id)).map((k) => k.revoked_at)).toEqual([null])
      expect((yield* admin.getCompany(a.id)).granted_scopes).toEqual(["catalog:read"])
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a manager runs the company's connections, not its people or audit log; an owner both", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, managerA, ownerA } = yield* setup
      expect(yield* tagOf(panel.createConnection(managerA, a.id, "Shop"))).toBe("success")
      expect(yield* tagOf(panel.listPeople(managerA, a.id))).toBe("PanelForbidden")
      expect(yield* tagOf(panel.auditLog(managerA, a.id))).toBe("PanelForbidden")
      expect(yield* tagOf(panel.listPeople(ownerA, a.id))).toBe("success")
      expect(yield* tagOf(panel.auditLog(ownerA, a.id))).toBe("success")
      const added = yield* tagOf(
        panel.createPerson(ownerA, a.id, { email: "new@example.com", name: "N", password, role: "admin" })
      )
      expect(added).toBe("PanelForbidden")
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a disabled company's owners and managers change nothing but can revoke keys; an administrator can", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const admin = yield* Admin
      const { a, admin: platform, managerA, ownerA } = yield* setup
      const location = (yield* admin.listLocations(a.id))[0]!.id
      yield* admin.updateCompany(a.id, { enabled: false })
      const fields = { name: "shop", scopes: ["catalog:read"], lifetime_days: 30 }
      for (const caller of [ownerA, managerA]) {
        const refused = [
          panel.createConnection(caller, a.id, "Shop"),
          panel.renameConnection(caller, a.id, a.connection, "Renamed"),
          panel.setConnectionEnabled(caller, a.id, a.connection, true),
          panel.createLocation(caller, a.id, "Store"),
          panel.createKey(caller, a.id, a.connection, fields, "form-nonce-disabled1"),
          panel.assignLocation(caller, a.id, a.connection, location, true),
          panel.unassignLocation(caller, a.id, a.connection, location)
        ]
        for (const change of refused) expect(yield* tagOf(change)).toBe("PanelChangeRefused")
        // Reading still works.
        expect(yield* tagOf(panel.connectionPage(caller, a.id, a.connection))).toBe("success")
      }
      const adding = panel.createPerson(ownerA, a.id, {
        email: "late@example.com",
        name: "L",
        password,
        role: "manager"
      })
      expect(yield* tagOf(adding)).toBe("PanelChangeRefused")
      expect(yield* tagOf(panel.setPersonEnabled(ownerA, a.id, managerA.user.id, false))).toBe("PanelChangeRefused")
      const failure = yield* Effect.flip(panel.createConnection(ownerA, a.id, "Shop"))
      expect(failure).toMatchObject({ reason: "company_disabled", message: expect.stringContaining("disabled") })
      expect((yield* admin.listConnections(a.id)).map((c) => c.name)).toEqual(["ERP"])
      // A leaked key can still be revoked; the administrator changes the company and enables it again.
      expect(yield* tagOf(panel.revokeKey(ownerA, a.id, a.connection, a.key))).toBe("success")
      expect(yield* tagOf(panel.createConnection(platform, a.id, "By the administrator"))).toBe("success")
      yield* panel.updateCompany(platform, a.id, { enabled: true })
      expect(yield* tagOf(panel.createConnection(ownerA, a.id, "Shop"))).toBe("success")
    }).pipe(Effect.provide(layer()))
  )

  it.effect("no one disables themselves, nor the company's last enabled owner", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, admin, ownerA } = yield* setup
      const self = yield* Effect.flip(panel.setPersonEnabled(ownerA, a.id, ownerA.user.id, false))
      expect(self).toMatchObject({ _tag: "PanelChangeRefused", reason: "own_account" })
      const last = yield* Effect.flip(panel.setPersonEnabled(admin, a.id, ownerA.user.id, false))
      expect(last).toMatchObject({ _tag: "PanelChangeRefused", reason: "last_owner" })
      // With a second owner, either can disable the other; the one left is the last again.
      const second = yield* panel.createPerson(ownerA, a.id, {
        email: "olga@example.com",
        name: "O",
        password,
        role: "owner"
      })
      expect((yield* panel.setPersonEnabled(ownerA, a.id, second.id, false)).enabled).toBe(false)
      expect(yield* tagOf(panel.setPersonEnabled(admin, a.id, ownerA.user.id, false))).toBe("PanelChangeRefused")
      expect((yield* panel.setPersonEnabled(ownerA, a.id, second.id, true)).enabled).toBe(true)
      expect((yield* panel.setPersonEnabled(admin, a.id, ownerA.user.id, false)).enabled).toBe(false)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("two owners disabling each other at once: one is refused, and the company keeps an owner", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, ownerA } = yield* setup
      const second = yield* panel.createPerson(ownerA, a.id, {
        email: "olga@example.com",
        name: "O",
        password,
        role: "owner"
      })
      const ownerO: PanelCaller = { user: second, address: "192.0.2.2" }
      const outcomes = yield* Effect.all(
        [
          tagOf(panel.setPersonEnabled(ownerA, a.id, second.id, false)),
          tagOf(panel.setPersonEnabled(ownerO, a.id, ownerA.user.id, false))
        ],
        { concurrency: "unbounded" }
      )
      expect([...outcomes].sort()).toEqual(["PanelChangeRefused", "success"])
      const owners = (yield* panel.listPeople(ownerA, a.id)).filter((p) => p.role === "owner" && p.enabled)
      expect(owners).toHaveLength(1)
    }).pipe(Effect.provide(interleavedLayer()))
  )

  it.effect("an email taken in another company is refused without saying so; in one's own, it is named", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, admin, ownerA, ownerB } = yield* setup
      const person = (email: string) => ({ email, name: "N", password, role: "manager" })
      const elsewhere = yield* Effect.flip(panel.createPerson(ownerA, a.id, person(ownerB.email.toUpperCase())))
      expect(elsewhere).toMatchObject({ _tag: "AccountConflict", field: "email" })
      expect(elsewhere.message).toBe("this email cannot be used; choose another")
      const platform = yield* Effect.flip(panel.createPerson(ownerA, a.id, person(admin.user.email)))
      expect(platform.message).toBe("this email cannot be used; choose another")
      const own = yield* Effect.flip(panel.createPerson(ownerA, a.id, person("manny@example.com")))
      expect(own.message).toContain("manny@example.com")
      const byAdmin = yield* Effect.flip(panel.createPerson(admin, a.id, person(ownerB.email)))
      expect(byAdmin.message).toContain(ownerB.email)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("records each change with the signed-in user and their address", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, admin, ownerA } = yield* setup
      yield* panel.setScopes(admin, a.id, ["catalog:read", "prices:read"])
      yield* panel.renameConnection(ownerA, a.id, a.connection, "Renamed")
      yield* panel.revokeKey(ownerA, a.id, a.connection, a.key)
      const log = yield* panel.auditLog(admin, a.id)
      const mine = log.filter((entry) => entry.address === "192.0.2.1").map((entry) => [entry.actor, entry.action])
      expect(mine).toEqual([
        ["otto@example.com", "key.revoke"],
        ["otto@example.com", "connection.rename"],
        ["ada@example.com", "company.grant_scopes"]
      ])
    }).pipe(Effect.provide(layer()))
  )

  it.effect("a key form creates one key: its second post finds that key and shows no secret", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, ownerA } = yield* setup
      const fields = { name: "shop", scopes: ["catalog:read"], lifetime_days: 30 }
      const first = yield* panel.createKey(ownerA, a.id, a.connection, fields, "form-nonce-0000001")
      if (first._tag !== "Created") return expect.unreachable("the first post creates the key")
      expect(first.token).toMatch(/^csk_/)
      const again = yield* panel.createKey(ownerA, a.id, a.connection, fields, "form-nonce-0000001")
      expect(again).toEqual({ _tag: "AlreadyCreated", keyId: first.key.id })
      const other = yield* panel.createKey(ownerA, a.id, a.connection, fields, "form-nonce-0000002")
      expect(other._tag).toBe("Created")
      const admin = yield* Admin
      expect((yield* admin.listKeys(a.id)).filter((key) => key.name === "shop")).toHaveLength(2)
      // A form without its nonce creates nothing; a refused form leaves its nonce unused.
      expect(yield* tagOf(panel.createKey(ownerA, a.id, a.connection, fields, ""))).toBe("ValidationFailed")
      const refused = { ...fields, lifetime_days: 0 }
      expect(yield* tagOf(panel.createKey(ownerA, a.id, a.connection, refused, "form-nonce-0000003"))).toBe(
        "ValidationFailed"
      )
      const later = yield* panel.createKey(ownerA, a.id, a.connection, fields, "form-nonce-0000003")
      expect(later._tag).toBe("Created")
      expect((yield* admin.listKeys(a.id)).filter((key) => key.name === "shop")).toHaveLength(3)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the connection's page shows each live key's and the company's requests this minute", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const limiter = yield* RateLimiter
      const { a, ownerA } = yield* setup
      const fresh = yield* panel.connectionPage(ownerA, a.id, a.connection)
      expect(fresh.rateUse.keys.get(a.key)).toMatchObject({ used: 0, limit: perKeyPerMinute })
      expect(fresh.rateUse.company).toMatchObject({ used: 0, limit: 600 })
      const now = yield* Clock.currentTimeMillis
      for (let i = 0; i < 3; i++)
        yield* limiter.consumeInOrder(
          [
            { bucket: keyBucket(a.key), limit: perKeyPerMinute },
            { bucket: `company:${a.id}`, limit: 600 }
          ],
          60_000,
          now
        )
      const seen = yield* panel.connectionPage(ownerA, a.id, a.connection)
      expect(seen.rateUse.keys.get(a.key)).toMatchObject({ used: 3, remaining: perKeyPerMinute - 3 })
      expect(seen.rateUse.company.used).toBe(3)
      // Reading the page counts nothing.
      expect((yield* panel.connectionPage(ownerA, a.id, a.connection)).rateUse.company.used).toBe(3)
      yield* panel.revokeKey(ownerA, a.id, a.connection, a.key)
      expect((yield* panel.connectionPage(ownerA, a.id, a.connection)).rateUse.keys.has(a.key)).toBe(false)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("location access is removed as it was granted, and the log records both", () =>
    Effect.gen(function* () {
      const panel = yield* CompanyPanel
      const { a, ownerA } = yield* setup
      const admin = yield* Admin
      const location = (yield* admin.listLocations(a.id))[0]!.id
      yield* panel.assignLocation(ownerA, a.id, a.connection, location, true)
      expect((yield* panel.connectionPage(ownerA, a.id, a.connection)).assignments).toHaveLength(1)
      yield* panel.unassignLocation(ownerA, a.id, a.connection, location)
      expect((yield* panel.connectionPage(ownerA, a.id, a.connection)).assignments).toEqual([])
      expect(yield* tagOf(panel.unassignLocation(ownerA, a.id, a.connection, location))).toBe("PanelForbidden")
      expect(yield* tagOf(admin.unassignLocation(a.connection, location))).toBe("RecordNotFound")
      const log = yield* panel.auditLog(ownerA, a.id)
      expect(log.slice(0, 2).map((entry) => [entry.actor, entry.action, entry.target, entry.details])).toEqual([
        ["otto@example.com", "location.unassign", location, { connection_id: a.connection }],
        ["otto@example.com", "location.assign", location, { connection_id: a.connection, writable: "true" }]
      ])
    }).pipe(Effect.provide(layer()))
  )
})
