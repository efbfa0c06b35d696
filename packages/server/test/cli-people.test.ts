/**
 * The panel's people and the audit log from the command line: `user create` (the first administrator,
 * owners and managers) reads the password from standard input, never from an argument; `user list`,
 * `disable`, `sign-out-everywhere`, `unlock`; and `audit list`, where each admin command appears under the CLI's
 * actor.
 */
import { layer } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { NodePasswordHasher } from "@catalog-sync/adapter-http"
import { Admin, AuditLog, Ids, InventoryAdmin, PeopleAdmin } from "@catalog-sync/core"
import { Effect, Layer, Option, Stdio, Stream } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { cliActor } from "../src/cli/CliActor.js"
import { parse } from "../src/cli/Commands.js"
import { PersistenceLive } from "../src/Server.js"

const dataDir = mkdtempSync(join(tmpdir(), "catalog-sync-cli-people-"))
const AdminLive = Layer.mergeAll(
  Admin.Admin.Default,
  InventoryAdmin.InventoryAdmin.Default,
  PeopleAdmin.PeopleAdmin.Default.pipe(Layer.provide(NodePasswordHasher.layer))
).pipe(
  Layer.provideMerge(
    PersistenceLive({
      port: 0,
      host: "127.0.0.1",
      dataDir,
      databaseFile: Option.none(),
      shutdownTimeoutSeconds: 1,
      logLevel: "Warn"
    })
  ),
  Layer.provide(Ids.IdsLive),
  Layer.merge(NodeServices.layer)
)

/** Parses a command line as the CLI does and runs it as the CLI's actor, with `input` on standard input. */
const run = (argv: ReadonlyArray<string>, input = "") =>
  Effect.flatMap(parse(argv), (action) =>
    action._tag === "Admin"
      ? action.run.pipe(
          Effect.provideService(AuditLog.Actor, cliActor()),
          Effect.provide(Stdio.layerTest({ stdin: Stream.make(new TextEncoder().encode(input)) }))
        )
      : Effect.die(`not an admin command: ${argv.join(" ")}`)
  )

const password = "correct horse battery staple"

layer(AdminLive, { timeout: 60_000 })("catalog-sync user and audit", (it) => {
  it.effect("makes the first administrator with the password from standard input, which then signs in", () =>
    Effect.gen(function* () {
      const created = (yield* run(
        ["user", "create", "--admin", "--email", "Root@Example.com", "--name", "Root", "--password-stdin"],
        `${password}\n`
      )) as { id: string; email: string; role: string; company_id: string | null }
      expect(created).toMatchObject({ email: "root@example.com", role: "admin", company_id: null })
      const people = yield* PeopleAdmin.PeopleAdmin
      const signedIn = yield* people.signIn({ email: "root@example.com", password, address: null })
      expect(signedIn.user.id).toBe(created.id)
      // The final line break was the shell's, not the password's.
      expect(
        yield* Effect.flip(people.signIn({ email: "root@example.com", password: `${password}\n`, address: null }))
      ).toMatchObject({ _tag: "SignInRefused" })
    })
  )

  it.effect("never takes a password as an argument, and asks for one only on a terminal", () =>
    Effect.gen(function* () {
      const base = ["user", "create", "--admin", "--email", "nopass@example.com", "--name", "No Pass"]
      expect(yield* Effect.flip(parse([...base, "--password", password]))).toMatchObject({
        message: expect.stringContaining("--password")
      })
      expect(yield* Effect.flip(run(base))).toMatchObject({
        _tag: "UsageError",
        message: "no password: pipe it to standard input with --password-stdin, or run in a terminal to be asked for it"
      })
      expect(yield* Effect.flip(run([...base, "--password-stdin"], "short\n"))).toMatchObject({
        _tag: "ValidationFailed",
        issues: [{ path: "$.password" }]
      })
    })
  )

  it.effect("an owner needs --company and --role; an administrator takes neither", () =>
    Effect.gen(function* () {
      const company = (yield* run([
        "company",
        "create",
        "--name",
        "Acme",
        "--currency",
        "EUR",
        "--main-language",
        "en",
        "--storage-slug",
        "acme-people"
      ])) as { id: string }
      const line = ["user", "create", "--email", "owner@acme.example", "--name", "Olga", "--password-stdin"]
      expect(yield* Effect.flip(run(line, password))).toMatchObject({
        message: "give --admin for a platform administrator, or --company and --role owner|manager"
      })
      expect(yield* Effect.flip(run([...line, "--admin", "--company", company.id], password))).toMatchObject({
        message: "an administrator (--admin) has no --company and no --role"
      })
      expect(yield* Effect.flip(run([...line, "--company", company.id, "--role", "boss"], password))).toMatchObject({
        message: "Expected one of the following cases: owner, manager"
      })
      const owner = (yield* run([...line, "--company", company.id, "--role", "owner"], password)) as { id: string }
      const listed = (yield* run(["user", "list", "--company", company.id])) as ReadonlyArray<{ id: string }>
      expect(listed.map((u) => u.id)).toEqual([owner.id])
      expect(yield* Effect.flip(run([...line, "--company", company.id, "--role", "manager"], password))).toMatchObject({
        _tag: "AccountConflict",
        field: "email"
      })
    })
  )

  it.effect("disables a user and signs a user out everywhere", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin.PeopleAdmin
      const created = (yield* run(
        ["user", "create", "--admin", "--email", "ops@example.com", "--name", "Ops", "--password-stdin"],
        password
      )) as { id: string }
      const a = yield* people.signIn({ email: "ops@example.com", password, address: null })
      yield* people.signIn({ email: "ops@example.com", password, address: null })
      expect(yield* run(["user", "sign-out-everywhere", created.id])).toEqual({ signed_out: created.id, sessions: 2 })
      expect(Option.isNone(yield* people.authenticate(a.token))).toBe(true)
      expect(yield* run(["user", "disable", created.id])).toMatchObject({ id: created.id, enabled: false })
      expect(yield* Effect.flip(people.signIn({ email: "ops@example.com", password, address: null }))).toMatchObject({
        _tag: "SignInRefused"
      })
      expect(yield* run(["user", "enable", created.id])).toMatchObject({ enabled: true })
    })
  )

  it.effect("user unlock forgets an account's failed sign-ins, audited under the CLI's actor", () =>
    Effect.gen(function* () {
      const people = yield* PeopleAdmin.PeopleAdmin
      yield* run(
        ["user", "create", "--admin", "--email", "locked@example.com", "--name", "L", "--password-stdin"],
        password
      )
      const from = { email: "locked@example.com", address: "192.0.2.44" }
      for (let i = 0; i < 10; i++) yield* Effect.flip(people.signIn({ ...from, password: `wrong password ${i}` }))
      expect((yield* Effect.flip(people.signIn({ ...from, password })))._tag).toBe("SignInThrottled")
      // Ten wrong passwords, reported once each though the throttle counts them per address and per account.
      expect(yield* run(["user", "unlock", "--email", "Locked@Example.com"])).toEqual({
        unlocked: "Locked@Example.com",
        failures: 10
      })
      expect((yield* people.signIn({ ...from, password })).user.email).toBe("locked@example.com")
      const entries = (yield* run(["audit", "list", "--limit", "5"])) as ReadonlyArray<AuditLog.AuditEntry>
      expect(entries.find((entry) => entry.action === "user.unlock")).toMatchObject({
        actor: expect.stringMatching(/^cli:/),
        details: { email: "locked@example.com", failures: "10" }
      })
    })
  )

  it.effect("audit list shows each admin command of a company under the CLI's actor, newest first", () =>
    Effect.gen(function* () {
      const company = (yield* run([
        "company",
        "create",
        "--name",
        "Audited",
        "--currency",
        "EUR",
        "--main-language",
        "en",
        "--storage-slug",
        "audited",
        "--scopes",
        "catalog:read"
      ])) as { id: string }
      const connection = (yield* run(["connection", "create", "--company", company.id, "--name", "ERP"])) as {
        id: string
      }
      yield* run(["connection", "rename", connection.id, "--name", "ERP (main)"])
      const key = (yield* run([
        "key",
        "create",
        "--connection",
        connection.id,
        "--scopes",
        "catalog:read",
        "--days",
        "30"
      ])) as {
        key: { id: string }
        token: string
      }
      yield* run(["key", "revoke", key.key.id])
      const entries = (yield* run(["audit", "list", "--company", company.id])) as ReadonlyArray<AuditLog.AuditEntry>
      expect(entries.map((e) => e.action)).toEqual([
        "key.revoke",
        "key.create",
        "connection.rename",
        "connection.create",
        "company.create"
      ])
      expect(new Set(entries.map((e) => e.actor))).toEqual(new Set([cliActor().label]))
      expect(cliActor().label).toMatch(/^cli:.+/)
      expect(JSON.stringify(entries)).not.toContain(key.token.slice(-43))
      const page = (yield* run([
        "audit",
        "list",
        "--company",
        company.id,
        "--limit",
        "2",
        "--before",
        entries[1]!.id
      ])) as ReadonlyArray<AuditLog.AuditEntry>
      expect(page.map((e) => e.action)).toEqual(["connection.rename", "connection.create"])
    })
  )
})
