/**
 * Embeds the core three ways and prints what each did: the same program in memory and on SQLite, then
 * the whole HTTP API served inside the application's own router, called over HTTP with a key that the
 * application made for a connection of its own.
 */
import { Admin, CatalogService, type Company, Ids, Principal } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { syncSofas } from "./Catalog.js"
import { InMemoryCatalog, SqliteCatalog } from "./Layers.js"
import { HostServerLive, ServicesLive } from "./Serve.js"

const company: Company.CompanySettings = {
  id: Ids.CompanyId.make("0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d01"),
  currency: "EUR",
  main_language: "en",
  languages: ["en"],
  tax_model: "inclusive",
  tax_rates: ["20.00"],
  storage_slug: "acme"
}
const CallerLive = Principal.layer({
  company,
  connectionId: "0190a5a4-7b4e-7cc2-8d7e-2b1c8f3a9d02",
  scopes: ["catalog:read", "catalog:write"]
})

const report = (where: string) => (result: Effect.Success<typeof syncSofas>) =>
  Effect.sync(() => {
    console.log(`${where}: ${result.outcomes.join(", ")}; stale write: ${result.conflict}`)
    for (const line of result.products) console.log(`${where}: ${line}`)
  })

const inMemory = syncSofas.pipe(
  Effect.tap(report("in memory")),
  Effect.provide(Layer.merge(InMemoryCatalog, CallerLive))
)

const onSqlite = (dataDir: string) =>
  Effect.gen(function* () {
    const file = join(dataDir, "embedded.db")
    yield* syncSofas.pipe(Effect.tap(report("sqlite")), Effect.provide(Layer.merge(SqliteCatalog(file), CallerLive)))
    // Opened again, the file still holds what the first run wrote.
    const kept = yield* Effect.flatMap(CatalogService.CatalogService, (catalog) =>
      catalog.list("products", { limit: 50 })
    ).pipe(Effect.provide(Layer.merge(SqliteCatalog(file), CallerLive)))
    for (const record of kept.records)
      console.log(`sqlite, reopened: ${record.external_id}: ${record.name} (revision ${record.revision})`)
  })

const overHttp = (dataDir: string) =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    const acme = yield* admin.createCompany({
      name: "Acme Furniture",
      currency: "EUR",
      main_language: "en",
      storage_slug: "acme",
      granted_scopes: ["catalog:read", "catalog:write"]
    })
    const connection = yield* admin.createConnection(acme.id, "ERP")
    const { token } = yield* admin.createKey({
      connection_id: connection.id,
      scopes: ["catalog:read", "catalog:write"],
      lifetime_days: 30
    })
    const address = (yield* HttpServer.HttpServer).address
    const base = address._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${address.port}`
    const call = (method: string, path: string, body?: unknown) =>
      Effect.promise(async () => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined
              ? {}
              : { "content-type": "application/json", "idempotency-key": `embed-${path.replaceAll("/", "-")}-1` })
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        const text = await response.text()
        console.log(`http: ${method} ${path} -> ${response.status} ${text.slice(0, 160)}`)
        return text
      })
    yield* call("GET", "/")
    yield* call("GET", "/status")
    const me = JSON.parse(yield* call("GET", "/api/v1/me")) as { principal: { connection_id: string } }
    console.log(`http: the key acts for connection ${me.principal.connection_id === connection.id ? "ERP" : "?"}`)
    yield* call("POST", "/api/v1/categories/upsert", { external_id: "sofas", name: "Sofas" })
    yield* call("GET", "/api/v1/categories?external_id=sofas")
    yield* call("GET", "/api/v1/nothing-here")
    yield* call("GET", "/health")
    yield* call("GET", "/ready")
    yield* call("GET", "/nothing-here")
  }).pipe(
    Effect.provide(HostServerLive({ port: 0, host: "127.0.0.1" }).pipe(Layer.provideMerge(ServicesLive(dataDir))))
  )

const main = Effect.acquireUseRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-embed-"))),
  (dataDir) => Effect.all([inMemory, onSqlite(dataDir), overHttp(dataDir)], { discard: true }),
  (dataDir) => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))
)

Effect.runPromise(main).then(
  () => console.log("done"),
  (error) => {
    console.error(error)
    process.exitCode = 1
  }
)
