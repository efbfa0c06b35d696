/**
 * CompanyPanel's authorization: an owner or manager reaches only their company (another's ids fail as
 * PanelForbidden, which the panel shows as "not found"), a manager not its people or audit log, only an
 * administrator the companies and their grants; and every change is recorded with the caller as actor.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { Admin } from "../src/Admin/AccountsAdmin.js"
import { JobAdmin } from "../src/Admin/JobAdmin.js"
import { CompanyPanel } from "../src/Panel/CompanyPanel.js"
import type { PanelCaller } from "../src/Panel/PanelAccess.js"
import type { PanelRole, PanelUser } from "../src/People/PanelUser.js"
import { PasswordHasher } from "../src/People/PasswordHasher.js"
import { PeopleAdmin } from "../src/People/PeopleAdmin.js"
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
    Layer.provideMerge(Layer.mergeAll(InMemory.accountsLayer, InMemory.peopleLayer)),
    Layer.provide(Layer.mergeAll(InMemory.layer, InMemoryJobs.layer, InMemoryMedia.storageLayer)),
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
        createKey: panel.createKey(ownerA, a.id, b.connection, {
          name: "",
          scopes: ["catalog:read"],
          lifetime_days: 30
        }),
        revokeKey: panel.revokeKey(ownerA, a.id, a.connection, b.key),
        assign: panel.assignLocation(ownerA, a.id, a.connection, b.location, true),
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
})
