import { layer } from "@effect/vitest"
import { Admin, Ids, InventoryAdmin } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { parseArgs, UsageError } from "../src/cli/Args.js"
import { runCommand } from "../src/cli/Commands.js"
import { PersistenceLive } from "../src/Server.js"
import { Option, LogLevel } from "effect"

const dataDir = mkdtempSync(join(tmpdir(), "catalog-sync-cli-"))
const AdminLive = Layer.mergeAll(Admin.Admin.Default, InventoryAdmin.InventoryAdmin.Default).pipe(
  Layer.provide(PersistenceLive({ port: 0, host: "127.0.0.1", dataDir, databaseFile: Option.none(), shutdownTimeoutSeconds: 1, logLevel: LogLevel.Warning })),
  Layer.provide(Ids.IdsLive)
)

const run = (line: string) => Effect.suspend(() => runCommand(parseArgs(line.split(" ").filter((w) => w !== ""))))

layer(AdminLive, { excludeTestServices: true })("catalog-sync CLI", (it) => {
  it.effect("runs the setup sequence: company, grants, connection, location, key, revoke", () =>
    Effect.gen(function* () {
      const company = (yield* run(
        "company create --name Acme --currency EUR --main-language en --languages de,fr --storage-slug acme-cli --tax-model inclusive --tax-rates 20,7.5 --scopes catalog:read,prices:read --stock-package on --inventory-module on"
      )) as { id: string; tax_rates: ReadonlyArray<string>; languages: ReadonlyArray<string>; stock_package: boolean }
      expect(company).toMatchObject({ tax_rates: ["20.00", "7.50"], languages: ["en", "de", "fr"], stock_package: true })
      const granted = (yield* run(`company grant ${company.id} --scopes catalog:write`)) as { granted_scopes: ReadonlyArray<string> }
      expect(granted.granted_scopes).toEqual(["catalog:read", "prices:read", "catalog:write"])
      const revoked = (yield* run(`company revoke ${company.id} --scopes prices:read`)) as { granted_scopes: ReadonlyArray<string> }
      expect(revoked.granted_scopes).toEqual(["catalog:read", "catalog:write"])
      expect(yield* run(`company disable ${company.id}`)).toMatchObject({ enabled: false })
      const connection = (yield* run(`connection create --company ${company.id} --name ERP`)) as { id: string }
      const location = (yield* run(`location create --company ${company.id} --name Warehouse`)) as { id: string }
      expect(yield* run(`location assign --connection ${connection.id} --location ${location.id} --writable on`)).toEqual({
        connection_id: connection.id,
        location_id: location.id,
        writable: true
      })
      const key = (yield* run(`key create --connection ${connection.id} --scopes catalog:read --days 90 --name erp`)) as {
        token: string
        key: { id: string; expires_at: string }
      }
      expect(key.token).toMatch(/^csk_[0-9a-f]{24}_/)
      const listed = yield* run(`key list --company ${company.id}`)
      expect(JSON.stringify(listed)).not.toContain(key.token.split("_").slice(2).join("_"))
      expect(yield* run(`key revoke ${key.key.id}`)).toEqual({ revoked: key.key.id })
      const missing = yield* Effect.flip(run("key revoke 000000000000000000000000"))
      expect(missing).toMatchObject({ code: "not_found" })
    }))

  it.effect("refuses bad input with a clear error, not a crash", () =>
    Effect.gen(function* () {
      const badLifetime = yield* Effect.flip(run(`key create --connection 00000000-0000-4000-8000-000000000000 --scopes catalog:read --days 400`))
      expect(badLifetime).toMatchObject({ code: "validation_failed" })
      const unknownCompany = yield* Effect.flip(run("connection create --company 00000000-0000-4000-8000-000000000000 --name X"))
      expect(unknownCompany).toMatchObject({ code: "not_found" })
      const usage = yield* Effect.exit(run("company frobnicate"))
      expect(usage._tag).toBe("Failure")
      expect(() => parseArgs(["key", "create", "--days"])).toThrow(UsageError)
    }))

  it.effect("stock reserve refuses unknown locations and items, bad quantities and an empty change", () =>
    Effect.gen(function* () {
      const company = (yield* run("company create --name Stock --currency EUR --main-language en --storage-slug stock-cli")) as { id: string }
      const location = (yield* run(`location create --company ${company.id} --name W`)) as { id: string }
      const item = "00000000-0000-4000-8000-000000000000"
      expect(yield* Effect.flip(run(`stock reserve --company ${company.id} --item ${item} --location ${item} --reserved 1`))).toMatchObject({ code: "unknown_location" })
      expect(yield* Effect.flip(run(`stock reserve --company ${company.id} --item ${item} --location ${location.id} --reserved 1`))).toMatchObject({ code: "not_found" })
      expect(yield* Effect.flip(run(`stock reserve --company ${company.id} --item ${item} --location ${location.id} --reserved -1`))).toMatchObject({ code: "validation_failed" })
      expect(yield* Effect.flip(run(`stock reserve --company ${company.id} --item ${item} --location ${location.id}`))).toMatchObject({ code: "validation_failed" })
    }))
})
