import { layer } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { NodePasswordHasher } from "@catalog-sync/adapter-http"
import { Admin, Ids, InventoryAdmin, PeopleAdmin } from "@catalog-sync/core"
import { Effect, Layer, Option } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { parse, UsageError } from "../src/cli/Commands.js"
import { quickstart } from "../src/cli/Quickstart.js"
import { PersistenceLive } from "../src/Server.js"

const dataDir = mkdtempSync(join(tmpdir(), "catalog-sync-cli-"))
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

/** Words split at spaces; `_` stands for a blank word. */
const words = (line: string) =>
  line
    .split(" ")
    .filter((w) => w !== "")
    .map((w) => (w === "_" ? "  " : w))

/** Parses a command line as the CLI does and runs its admin command; fails with the UsageError or the admin error. */
const run = (line: string) =>
  Effect.flatMap(parse(words(line)), (action) =>
    action._tag === "Admin" ? action.run : Effect.die(`not an admin command: ${line}`)
  )

const uuid = "00000000-0000-4000-8000-000000000000"

/** Bad command lines and the one line each must answer; none reaches the database. */
const badInputs: ReadonlyArray<readonly [string, string]> = [
  [
    "company create --nmae Acme --currency EUR --main-language en --storage-slug a1",
    "The flag '--nmae' is not recognized. Did you mean '--name'?"
  ],
  [
    "company create --name Acme --currency EUR --main-language en --storage-slug a1 --colour red",
    "Received unknown argument: '--colour'"
  ],
  [
    "company",
    "company needs a command: company create, company update, company enable, company disable, company grant, company revoke, company show, company list"
  ],
  ["company frobnicate", "unknown command: company frobnicate"],
  [
    "frobnicate",
    "unknown command: frobnicate; the commands are serve, migrate, quickstart, status, company, connection, location, stock, key, jobs, user, audit"
  ],
  [
    "company create --name Acme --currency XYZ --main-language en --storage-slug a1",
    '--currency must be an ISO 4217 currency code such as EUR or USD, not "XYZ"'
  ],
  [
    "company create --name Acme --currency eur --main-language en --storage-slug a1",
    '--currency must be an ISO 4217 currency code such as EUR or USD, not "eur"'
  ],
  [
    "company create --name Acme --currency EUR --main-language english --storage-slug a1",
    '--main-language takes language codes such as en, de or pt-BR; "english" is not one'
  ],
  [
    "company create --name Acme --currency EUR --main-language en --languages de,qq --storage-slug a1",
    '--languages takes language codes such as en, de or pt-BR; "qq" is not one'
  ],
  [
    "company create --name Acme --currency EUR --main-language en --storage-slug a1 --subscription maybe",
    '--subscription takes on or off, not "maybe"'
  ],
  [
    "company create --name Acme --currency EUR --main-language en --storage-slug a1 --tax-model gross",
    "Expected one of the following cases: inclusive, exclusive, none, unconfigured"
  ],
  ["company create --currency EUR --main-language en --storage-slug a1", "Expected to find option: '--name'"],
  [
    `company grant ${uuid} --scopes catalog:raed`,
    "unknown scope catalog:raed; valid scopes: catalog:read, catalog:write, prices:read, prices:write, costs:read, costs:write, media:read, media:write, stock:read, stock:write"
  ],
  [`company grant ${uuid} --scopes ,`, "--scopes needs at least one of: catalog:read, catalog:write"],
  [
    "company show not-a-uuid",
    '<company-id> must be a uuid (as printed by the command that created it), not "not-a-uuid"'
  ],
  ["company show", "Missing argument <company-id>"],
  [`company show ${uuid} ${uuid}`, `Received unknown argument: '${uuid}'`],
  [
    "connection create --company not-a-uuid --name ERP",
    '--company must be a uuid (as printed by the command that created it), not "not-a-uuid"'
  ],
  [`connection create --company ${uuid}`, "Expected to find option: '--name'"],
  [`connection create --company ${uuid} --name`, "Expected a value following option: '--name'"],
  [`connection create --company ${uuid} --name _`, "--name must not be empty"],
  [
    `location assign --connection ${uuid} --location ${uuid} --writable sometimes`,
    '--writable takes on or off, not "sometimes"'
  ],
  [
    `stock reserve --company ${uuid} --item nope --location ${uuid} --reserved 1`,
    '--item must be a uuid (as printed by the command that created it), not "nope"'
  ],
  [
    `stock reserve --company ${uuid} --item ${uuid} --location ${uuid} --reserved lots`,
    '--reserved takes a decimal number such as 2 or 1.5, not "lots"'
  ],
  [
    `key create --connection ${uuid} --scopes catalog:read --days 400`,
    '--days takes a whole number from 1 to 365, not "400"'
  ],
  [
    `key create --connection ${uuid} --scopes catalog:read --days ninety`,
    '--days takes a whole number from 1 to 365, not "ninety"'
  ],
  ["key revoke csk_abc", '<key-id> must be the 24 hex digits after csk_ (as key list shows), not "csk_abc"'],
  ["jobs show not-a-uuid", '<job-id> must be a uuid (as printed by the command that created it), not "not-a-uuid"'],
  ["jobs list --state done", "Expected one of the following cases: queued, running, completed, failed, paused"],
  ["jobs list --limit 0", '--limit takes a whole number from 1 to 1000, not "0"'],
  ["jobs resume", "jobs resume needs --company <company-id> or --all (one of them)"],
  [`jobs resume --company ${uuid} --all`, "jobs resume needs --company <company-id> or --all (one of them)"]
]

layer(AdminLive, { excludeTestServices: true })("catalog-sync CLI", (it) => {
  it.effect.each(badInputs)("refuses %s with one line", ([line, message]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(parse(words(line)))
      expect(error).toBeInstanceOf(UsageError)
      expect(error.message).toContain(message)
      expect(error.message).not.toContain("\n")
      expect(error.message.trim()).not.toBe("")
    })
  )

  it.effect(
    "refuses control characters and bidi overrides in every name, naming the character, never printing it",
    () =>
      Effect.gen(function* () {
        const c = ["--company", uuid]
        const lines = (name: string) => [
          ["company", "create", "--name", name, "--currency", "EUR", "--main-language", "en", "--storage-slug", "a1"],
          ["company", "update", uuid, "--name", name],
          ["connection", "create", ...c, "--name", name],
          ["location", "create", ...c, "--name", name],
          ["key", "create", "--connection", uuid, "--scopes", "catalog:read", "--days", "9", "--name", name]
        ]
        const refused: ReadonlyArray<readonly [string, string]> = [
          ["Evil\n\x1b[31m\u202e", "U+000A"],
          ["Tab\there", "U+0009"],
          ["C1 \u0085 NEL", "U+0085"],
          ["DEL\u007f", "U+007F"],
          ["gpj.\u202eexe", "U+202E"],
          ["isolate \u2066x\u2069", "U+2066"],
          ["line\u2028separator", "U+2028"]
        ]
        for (const [name, character] of refused) {
          for (const line of lines(name)) {
            const error = yield* Effect.flip(parse(line))
            expect(error).toBeInstanceOf(UsageError)
            expect([line.slice(0, 2), error.message]).toEqual([
              line.slice(0, 2),
              `--name must not contain control characters, line breaks, or bidirectional overrides, embeddings or isolates (it holds ${character})`
            ])
          }
        }
        // Right-to-left names with their direction marks, and other scripts, are names.
        for (const name of ["\u05e9\u05dc\u05d5\u05dd 2\u200f", "M\u00f6bel M\u00fcller", "\u5bb6\u5177"])
          for (const line of lines(name)) expect((yield* parse(line))._tag).toBe("Admin")
      })
  )

  it.effect("the admin use cases refuse such names too (an embedding program has no CLI in front)", () =>
    Effect.gen(function* () {
      const admin = yield* Admin.Admin
      const company = yield* admin.createCompany({
        name: "Names",
        currency: "EUR",
        main_language: "en",
        storage_slug: "names-cli",
        granted_scopes: ["catalog:read"]
      })
      const connection = yield* admin.createConnection(company.id, "ERP \u200f")
      const evil = "Evil\n\x1b[31m\u202e"
      const refusals: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        admin.createCompany({ name: evil, currency: "EUR", main_language: "en", storage_slug: "names-evil" }),
        admin.updateCompany(company.id, { name: evil }),
        admin.createConnection(company.id, evil),
        admin.createLocation(company.id, evil),
        admin.createKey({ connection_id: connection.id, scopes: ["catalog:read"], lifetime_days: 9, name: evil })
      ]
      for (const refusal of refusals) {
        expect(yield* Effect.flip(refusal)).toMatchObject({
          _tag: "ValidationFailed",
          issues: [{ path: "$.name", message: expect.stringContaining("must not contain control characters") }]
        })
      }
    })
  )

  it.effect("no arguments serve; help and the version print and run nothing", () =>
    Effect.gen(function* () {
      expect(yield* parse([])).toEqual({ _tag: "Serve" })
      expect(yield* parse(["serve"])).toEqual({ _tag: "Serve" })
      expect(yield* parse(["migrate"])).toEqual({ _tag: "Migrate" })
      expect(yield* parse(["status"])).toEqual({ _tag: "Status" })
      expect((yield* parse(["jobs", "resume", "--all"]))._tag).toBe("Jobs")
      expect(yield* parse(["quickstart", "--url", "http://example.test:9000"])).toEqual({
        _tag: "Quickstart",
        url: Option.some("http://example.test:9000")
      })
    })
  )

  it.effect("runs the setup sequence: company, grants, connection, location, key, revoke", () =>
    Effect.gen(function* () {
      const company = (yield* run(
        "company create --name Acme --currency EUR --main-language en --languages de,fr --storage-slug acme-cli --tax-model inclusive --tax-rates 20,7.5 --scopes catalog:read,prices:read --stock-package on --inventory-module on"
      )) as { id: string; tax_rates: ReadonlyArray<string>; languages: ReadonlyArray<string>; stock_package: boolean }
      expect(company).toMatchObject({
        tax_rates: ["20.00", "7.50"],
        languages: ["en", "de", "fr"],
        stock_package: true
      })
      const granted = (yield* run(`company grant ${company.id} --scopes catalog:write`)) as {
        granted_scopes: ReadonlyArray<string>
      }
      expect(granted.granted_scopes).toEqual(["catalog:read", "prices:read", "catalog:write"])
      const revoked = (yield* run(`company revoke ${company.id} --scopes prices:read`)) as {
        granted_scopes: ReadonlyArray<string>
      }
      expect(revoked.granted_scopes).toEqual(["catalog:read", "catalog:write"])
      expect(yield* run(`company disable ${company.id}`)).toMatchObject({ enabled: false })
      expect(yield* run(`company update ${company.id} --enabled on --name=Acme2`)).toMatchObject({
        enabled: true,
        name: "Acme2"
      })
      const connection = (yield* run(`connection create --company ${company.id} --name ERP`)) as { id: string }
      const location = (yield* run(`location create --company ${company.id} --name Warehouse`)) as { id: string }
      expect(yield* run(`location assign --connection ${connection.id} --location ${location.id}`)).toEqual({
        connection_id: connection.id,
        location_id: location.id,
        writable: true
      })
      expect(yield* run(`location unassign --connection ${connection.id} --location ${location.id}`)).toEqual({
        connection_id: connection.id,
        location_id: location.id
      })
      expect(
        yield* Effect.flip(run(`location unassign --connection ${connection.id} --location ${location.id}`))
      ).toMatchObject({ code: "not_found", message: `no location ${location.id}` })
      const key = (yield* run(
        `key create --connection ${connection.id} --scopes catalog:read --days 90 --name erp`
      )) as {
        token: string
        key: { id: string; expires_at: string }
      }
      expect(key.token).toMatch(/^csk_[0-9a-f]{24}_/)
      const listed = yield* run(`key list --company ${company.id}`)
      expect(JSON.stringify(listed)).not.toContain(key.token.split("_").slice(2).join("_"))
      expect(yield* run(`key revoke ${key.key.id}`)).toEqual({ revoked: key.key.id })
      const missing = yield* Effect.flip(run("key revoke 000000000000000000000000"))
      expect(missing).toMatchObject({ code: "not_found", message: "no key 000000000000000000000000" })
    })
  )

  it.effect("errors of the admin use cases name the record plainly", () =>
    Effect.gen(function* () {
      const unknownCompany = yield* Effect.flip(run(`connection create --company ${uuid} --name X`))
      expect(unknownCompany).toMatchObject({ code: "not_found", message: `no company ${uuid}` })
      const unknownConnection = yield* Effect.flip(
        run(`key create --connection ${uuid} --scopes catalog:read --days 90`)
      )
      expect(unknownConnection).toMatchObject({ code: "not_found", message: `no connection ${uuid}` })
      const badSlug = yield* Effect.flip(
        run("company create --name Acme --currency EUR --main-language en --storage-slug Not_A_Slug")
      )
      expect(badSlug).toMatchObject({ code: "validation_failed" })
    })
  )

  it.effect("stock reserve refuses unknown locations and items, bad quantities and an empty change", () =>
    Effect.gen(function* () {
      const company = (yield* run(
        "company create --name Stock --currency EUR --main-language en --storage-slug stock-cli"
      )) as { id: string }
      const location = (yield* run(`location create --company ${company.id} --name W`)) as { id: string }
      expect(
        yield* Effect.flip(run(`stock reserve --company ${company.id} --item ${uuid} --location ${uuid} --reserved 1`))
      ).toMatchObject({ code: "unknown_location" })
      expect(
        yield* Effect.flip(
          run(`stock reserve --company ${company.id} --item ${uuid} --location ${location.id} --reserved 1`)
        )
      ).toMatchObject({ code: "not_found" })
      expect(
        yield* Effect.flip(
          run(`stock reserve --company ${company.id} --item ${uuid} --location ${location.id} --reserved -1`)
        )
      ).toMatchObject({ code: "validation_failed" })
      expect(
        yield* Effect.flip(run(`stock reserve --company ${company.id} --item ${uuid} --location ${location.id}`))
      ).toMatchObject({ code: "validation_failed" })
    })
  )

  it.effect("quickstart makes a demo company, connection and key; run again it reuses them with a new key", () =>
    Effect.gen(function* () {
      const first = yield* quickstart("http://localhost:8080")
      expect(first).toMatchObject({ url: "http://localhost:8080", created: true })
      expect(first.key).toMatch(/^csk_[0-9a-f]{24}_/)
      const second = yield* quickstart("http://localhost:8080")
      expect(second).toMatchObject({ company_id: first.company_id, connection_id: first.connection_id, created: false })
      expect(second.key).not.toBe(first.key)
      const keys = (yield* run(`key list --company ${first.company_id}`)) as ReadonlyArray<{
        scopes: ReadonlyArray<string>
      }>
      expect(keys).toHaveLength(2)
      expect(keys[0]!.scopes).toContain("stock:write")
    })
  )
})
