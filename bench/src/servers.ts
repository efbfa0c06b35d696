/**
 * Baseline servers, each started as its own child process by bench/src/main.ts:
 *
 *   node bench/dist/servers.js raw-get      <port> <fixtures.json>   node:http answering the same JSON bodies
 *   node bench/dist/servers.js empty-api    <port> <fixtures.json>   HttpApi with the real schemas, constant handlers
 *   node bench/dist/servers.js raw-upsert   <port> <database file>   node:http + better-sqlite3 running the same SQL
 *                                                                    as a product upsert of the real server
 *   node bench/dist/servers.js minimal-upsert <port> <database file>  node:http + better-sqlite3 doing a product upsert
 *                                                                    in the fewest statements (minimalUpsert.ts)
 *   node bench/dist/servers.js minimal-import <port> <database file>  node:http + better-sqlite3 doing POST /imports
 *                                                                    and its job in the fewest statements
 *                                                                    (minimalImport.ts)
 *   node bench/dist/servers.js raw-media    <jpeg file> <count>         the server's sharp pipeline (same options) on the
 *                                                                    file `count` times in turn, prints {"ms": elapsed}
 *   node bench/dist/servers.js raw-import   <database file> <plan.json>  writes the plan's products in raw 50-row
 *                                                                    transactions, prints {"ms": elapsed}
 *   node bench/dist/servers.js latency-proxy <one-way ms> <url>      a TCP proxy to the server at `url` delaying
 *                                                                    every chunk (the tests' LatencyProxy.ts),
 *                                                                    prints {"url": url through the proxy}
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Resources } from "@catalog-sync/core"
import { Effect, Layer, References } from "effect"
import { HttpMiddleware, HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import Database from "better-sqlite3"
import { createHash, randomUUID, timingSafeEqual } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { readBody, send } from "./plainHttp.js"
import { CatalogApi, ChangesApi, Common } from "@catalog-sync/contract"
import { minimalImport } from "./minimalImport.js"
import { minimalUpsert } from "./minimalUpsert.js"
import { appendChange } from "./changeSql.js"
import { recordId } from "./recordIds.js"
import { startLatencyProxy } from "../../packages/server/test/LatencyProxy.js"

const [kind, portText, file] = process.argv.slice(2)
const port = Number(portText)
const host = "127.0.0.1"

interface Fixtures {
  readonly record: Record<string, unknown>
  readonly page: {
    readonly records: ReadonlyArray<unknown>
    readonly next_cursor: string | null
    readonly has_more: boolean
    readonly change_cursor?: string
  }
  /** An up-to-date feed poll's answer (no change after the cursor). */
  readonly feed: { readonly records: ReadonlyArray<never>; readonly next_cursor: string; readonly has_more: false }
}

/** Plain node:http: routes by prefix and answers the same bodies the real server gave at setup. */
const rawGet = (fixtures: Fixtures) => {
  createServer((req, res) => {
    const requestId = randomUUID()
    if (req.url?.startsWith("/api/v1/products?")) return send(res, 200, { request_id: requestId, ...fixtures.page })
    if (req.url?.startsWith("/api/v1/changes?")) return send(res, 200, { request_id: requestId, ...fixtures.feed })
    if (req.url?.startsWith("/api/v1/products/"))
      return send(res, 200, { request_id: requestId, record: fixtures.record })
    if (req.url === "/health") return send(res, 200, { status: "ok" })
    send(res, 404, { error: "not found" })
  }).listen(port, host)
}

/** HttpApi with the product and feed endpoints' real path, query and success schemas, and constant handlers. */
const emptyApi = (fixtures: Fixtures) => {
  const record = Resources.definitions.products.record
  const group = HttpApiGroup.make("products")
    .add(
      HttpApiEndpoint.get("list", "/products", {
        query: CatalogApi.ProductListQuery,
        success: CatalogApi.ListResponse(record)
      }),
      HttpApiEndpoint.get("get", "/products/:id", {
        params: Common.PathParams("The product's id."),
        success: CatalogApi.RecordResponse(record)
      })
    )
    .prefix("/api/v1")
  const feed = HttpApiGroup.make("changes")
    .add(
      HttpApiEndpoint.get("changes", "/changes", {
        query: ChangesApi.ChangesQuery,
        success: ChangesApi.ChangesResponse
      })
    )
    .prefix("/api/v1")
  const health = HttpApiGroup.make("system").add(HttpApiEndpoint.get("health", "/health"))
  // Strict query strings, as the contract's Api.
  const api = HttpApi.make("bench")
    .add(group, feed, health)
    .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
  const handlers = HttpApiBuilder.group(api, "products", (h) =>
    h
      .handle("list", () => Effect.sync(() => ({ request_id: randomUUID(), ...fixtures.page }) as never))
      .handle("get", () => Effect.sync(() => ({ request_id: randomUUID(), record: fixtures.record }) as never))
  )
  const changes = HttpApiBuilder.group(api, "changes", (h) =>
    h.handle("changes", () => Effect.sync(() => ({ request_id: randomUUID(), ...fixtures.feed }) as never))
  )
  const system = HttpApiBuilder.group(api, "system", (h) => h.handle("health", () => Effect.void))
  // The same serving setup as packages/server/src/Server.ts without OTLP (no platform request span, tracing
  // off, no access logger).
  const live = HttpRouter.serve(
    HttpApiBuilder.layer(api).pipe(Layer.provide(Layer.mergeAll(handlers, changes, system))),
    { disableLogger: true }
  ).pipe(
    Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen, () => true)),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host })),
    Layer.provide(Layer.succeed(References.TracerEnabled, false))
  )
  NodeRuntime.runMain(Layer.launch(live))
}

/**
 * node:http + better-sqlite3 doing what a product upsert of the real server does in SQL (captured
 * statement by statement from the real server): key lookup, domain lookup, idempotency claim, then in
 * one transaction the mapping lookups, record insert/update, category rows, change row and the stored
 * response. Same pragmas as adapter-sqlite (WAL, synchronous NORMAL, foreign keys).
 */
const rawUpsert = (filename: string) => {
  const db = new Database(filename)
  db.pragma("busy_timeout = 5000")
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  const findKey = db.prepare(
    `SELECT k.id AS key_id, k.scopes AS key_scopes, k.secret_hash, k.expires_at, k.revoked_at, c.id AS connection_id, c.enabled AS connection_enabled,
            co.id AS company_id, co.enabled AS company_enabled, co.subscription_active, co.granted_scopes, co.tax_model
       FROM api_keys k JOIN connections c ON c.id = k.connection_id JOIN companies co ON co.id = k.company_id WHERE k.id = ?`
  )
  const domain = db.prepare("SELECT company_id FROM company_domains WHERE domain = ?")
  const claim = db.prepare(
    `INSERT INTO idempotency_keys ("company_id","connection_id","key","fingerprint","state","lease_until","created_at","status","response")
     VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING state`
  )
  const mappingsByExternal = db.prepare(
    "SELECT external_id, record_id FROM mappings WHERE company_id = ? AND connection_id = ? AND resource = ? AND external_id IN (?)"
  )
  const insertMapping = db.prepare(
    `INSERT INTO mappings ("company_id","connection_id","resource","external_id","record_id","created_at") VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING record_id`
  )
  const selectRecord = db.prepare(
    `SELECT r.company_id, r.resource, r.id, r.revision, r.data, r.category_ids, r.active, r.collection_id, r.brand_id, r.parent_id, r.created_at, r.updated_at, r.archived_at
       FROM catalog_records r WHERE r.company_id = ? AND r.resource = ? AND r.id = ?`
  )
  const insertRecord = db.prepare(
    `INSERT INTO catalog_records ("company_id","resource","id","revision","data","category_ids","active","collection_id","brand_id","parent_id","created_at","updated_at","archived_at") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`
  )
  const updateRecord = db.prepare(
    `UPDATE catalog_records SET "revision" = ?, "data" = ?, "category_ids" = ?, "active" = ?, "collection_id" = ?, "brand_id" = ?, "parent_id" = ?, "created_at" = ?, "updated_at" = ?, "archived_at" = ?
      WHERE company_id = ? AND resource = ? AND id = ? AND revision = ? RETURNING revision`
  )
  const deleteCategories = db.prepare("DELETE FROM record_categories WHERE company_id = ? AND product_id = ?")
  const insertCategory = db.prepare(
    `INSERT INTO record_categories ("company_id","product_id","category_id") VALUES (?,?,?)`
  )
  const insertChange = appendChange(db)
  const complete = db.prepare(
    `UPDATE idempotency_keys SET state = 'completed', status = ?, response = ? WHERE company_id = ? AND connection_id = ? AND "key" = ?`
  )
  const begin = db.prepare("BEGIN")
  const commit = db.prepare("COMMIT")
  const rollback = db.prepare("ROLLBACK")
  const savepoint1 = db.prepare("SAVEPOINT s1")
  const savepoint2 = db.prepare("SAVEPOINT s2")
  const release2 = db.prepare("RELEASE s2")
  const release1 = db.prepare("RELEASE s1")

  const upsert = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const requestId = randomUUID()
    const match = /^Bearer csk_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/.exec(req.headers.authorization ?? "")
    if (match === null) return send(res, 401, { request_id: requestId })
    const key = findKey.get(match[1]) as
      { readonly secret_hash: string; readonly company_id: string; readonly connection_id: string } | undefined
    const presented = createHash("sha256").update(match[2]!).digest("hex")
    if (key === undefined || !timingSafeEqual(Buffer.from(presented), Buffer.from(key.secret_hash)))
      return send(res, 401, { request_id: requestId })
    domain.get((req.headers.host ?? "").replace(/:\d+$/, ""))
    const body = JSON.parse(text) as {
      external_id: string
      expected_revision?: number
      name: string
      category_ids?: Array<{ external_id: string }>
    }
    const idempotencyKey = String(req.headers["idempotency-key"])
    const now = Date.now()
    const fingerprint = createHash("sha256").update(`POST /api/v1/products/upsert\n${text}`).digest("hex")
    const claimed = claim.get(
      key.company_id,
      key.connection_id,
      idempotencyKey,
      fingerprint,
      "running",
      now + 60_000,
      now,
      null,
      "null"
    )
    if (claimed === undefined) return send(res, 409, { request_id: requestId })
    const at = new Date(now).toISOString()
    begin.run()
    try {
      savepoint1.run()
      const mapped = mappingsByExternal.all(key.company_id, key.connection_id, "products", body.external_id) as Array<{
        record_id: string
      }>
      let record: object
      let outcome: string
      if (mapped.length === 0) {
        const categories = mappingsByExternal.all(
          key.company_id,
          key.connection_id,
          "categories",
          body.category_ids?.[0]?.external_id ?? ""
        ) as Array<{ record_id: string }>
        const categoryIds = categories.map((c) => c.record_id)
        const id = recordId()
        insertMapping.get(key.company_id, key.connection_id, "products", body.external_id, id, at)
        savepoint2.run()
        record = {
          id,
          external_id: body.external_id,
          revision: 1,
          name: body.name,
          category_ids: categoryIds,
          created_at: at,
          updated_at: at
        }
        insertRecord.run(
          key.company_id,
          "products",
          id,
          1,
          JSON.stringify(record),
          JSON.stringify(categoryIds),
          0,
          null,
          null,
          null,
          at,
          at,
          null
        )
        for (const category of categoryIds) insertCategory.run(key.company_id, id, category)
        release2.run()
        insertChange.run(key.company_id, "products", id, 1, "created", key.connection_id, at, 3)
        outcome = "created"
      } else {
        const stored = selectRecord.get(key.company_id, "products", mapped[0]!.record_id) as {
          readonly id: string
          readonly revision: number
          readonly data: string
          readonly category_ids: string
          readonly created_at: string
        }
        if (stored.revision !== body.expected_revision) {
          rollback.run()
          db.prepare(`DELETE FROM idempotency_keys WHERE company_id = ? AND connection_id = ? AND "key" = ?`).run(
            key.company_id,
            key.connection_id,
            idempotencyKey
          )
          return send(res, 409, {
            request_id: requestId,
            error: { code: "revision_conflict", details: { current_revision: stored.revision } }
          })
        }
        const data = { ...JSON.parse(stored.data), name: body.name }
        const revision = stored.revision + 1
        savepoint2.run()
        updateRecord.get(
          revision,
          JSON.stringify(data),
          stored.category_ids,
          0,
          null,
          null,
          null,
          stored.created_at,
          at,
          null,
          key.company_id,
          "products",
          stored.id,
          stored.revision
        )
        deleteCategories.run(key.company_id, stored.id)
        for (const category of JSON.parse(stored.category_ids) as Array<string>)
          insertCategory.run(key.company_id, stored.id, category)
        release2.run()
        insertChange.run(key.company_id, "products", stored.id, revision, "updated", key.connection_id, at, 1)
        record = {
          id: stored.id,
          external_id: body.external_id,
          revision,
          ...data,
          created_at: stored.created_at,
          updated_at: at
        }
        outcome = "updated"
      }
      complete.run(200, JSON.stringify({ outcome, record }), key.company_id, key.connection_id, idempotencyKey)
      release1.run()
      commit.run()
      send(res, 200, { request_id: requestId, outcome, record })
    } catch (error) {
      if (db.inTransaction) rollback.run()
      send(res, 500, { request_id: requestId, error: String(error) })
    }
  }

  createServer((req, res) => {
    if (req.url === "/health") return send(res, 200, { status: "ok" })
    if (req.method === "POST" && req.url === "/api/v1/products/upsert") {
      readBody(req).then(
        (text) => upsert(req, res, text),
        () => send(res, 400, {})
      )
      return
    }
    send(res, 404, { error: "not found" })
  }).listen(port, host)
}

/**
 * The rows an import of new products writes, without the API: per product the mapping lookups (product,
 * category), mapping, record, category row and `created` change, with the SQL of a product create, in
 * transactions of 50 products. The record JSON is the company's `p0` row with the new name.
 */
const rawImport = (filename: string, planFile: string) => {
  const plan = JSON.parse(readFileSync(planFile, "utf8")) as {
    readonly companies: ReadonlyArray<{
      readonly id: string
      readonly connectionId: string
      readonly productId: string
      readonly externalIds: ReadonlyArray<string>
    }>
  }
  const db = new Database(filename)
  db.pragma("busy_timeout = 5000")
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  const template = db.prepare(
    "SELECT data FROM catalog_records WHERE company_id = ? AND resource = 'products' AND id = ?"
  )
  const mappingsByExternal = db.prepare(
    "SELECT external_id, record_id FROM mappings WHERE company_id = ? AND connection_id = ? AND resource = ? AND external_id IN (?)"
  )
  const insertMapping = db.prepare(
    `INSERT INTO mappings ("company_id","connection_id","resource","external_id","record_id","created_at") VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING record_id`
  )
  const insertRecord = db.prepare(
    `INSERT INTO catalog_records ("company_id","resource","id","revision","data","category_ids","active","collection_id","brand_id","parent_id","created_at","updated_at","archived_at") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`
  )
  const insertCategory = db.prepare(
    `INSERT INTO record_categories ("company_id","product_id","category_id") VALUES (?,?,?)`
  )
  const insertChange = appendChange(db)
  const writeBatch = db.transaction(
    (company: (typeof plan.companies)[number], data: Record<string, unknown>, externalIds: ReadonlyArray<string>) => {
      const at = new Date().toISOString()
      for (const externalId of externalIds) {
        if (mappingsByExternal.all(company.id, company.connectionId, "products", externalId).length > 0) continue
        const categoryIds = (
          mappingsByExternal.all(company.id, company.connectionId, "categories", "sofas") as Array<{
            record_id: string
          }>
        ).map((c) => c.record_id)
        const id = recordId()
        insertMapping.get(company.id, company.connectionId, "products", externalId, id, at)
        const record = { ...data, name: externalId, category_ids: categoryIds }
        insertRecord.run(
          company.id,
          "products",
          id,
          1,
          JSON.stringify(record),
          JSON.stringify(categoryIds),
          0,
          null,
          null,
          null,
          at,
          at,
          null
        )
        for (const category of categoryIds) insertCategory.run(company.id, id, category)
        insertChange.run(company.id, "products", id, 1, "created", company.connectionId, at, 3)
      }
    }
  )
  const started = performance.now()
  for (const company of plan.companies) {
    const data = JSON.parse((template.get(company.id, company.productId) as { data: string }).data) as Record<
      string,
      unknown
    >
    for (let i = 0; i < company.externalIds.length; i += 50)
      writeBatch(company, data, company.externalIds.slice(i, i + 50))
  }
  process.stdout.write(JSON.stringify({ ms: performance.now() - started }))
  db.close()
}

/** The pipeline of adapter-image-sharp with the options of a catalog image, reading the file each time. */
const rawMedia = async (file: string, count: number) => {
  const { default: sharp } = await import("sharp")
  const started = performance.now()
  for (let i = 0; i < count; i++) {
    const source = readFileSync(file)
    await sharp(source, { limitInputPixels: 40_000_000, failOn: "error" })
      .rotate()
      .resize({ width: 1500, height: 1500, fit: "inside", withoutEnlargement: true })
      .webp({ quality: 82, alphaQuality: 100 })
      .toBuffer({ resolveWithObject: true })
  }
  process.stdout.write(JSON.stringify({ ms: performance.now() - started }))
}

if (kind === "raw-get") rawGet(JSON.parse(readFileSync(file!, "utf8")) as Fixtures)
else if (kind === "empty-api") emptyApi(JSON.parse(readFileSync(file!, "utf8")) as Fixtures)
else if (kind === "raw-upsert") rawUpsert(file!)
else if (kind === "minimal-upsert") minimalUpsert(file!, port, host)
else if (kind === "minimal-import") minimalImport(file!, port, host)
else if (kind === "raw-import") rawImport(portText!, file!)
else if (kind === "raw-media") void rawMedia(portText!, Number(file))
else if (kind === "latency-proxy")
  void startLatencyProxy(file!, Number(portText)).then((proxy) =>
    process.stdout.write(`${JSON.stringify({ url: proxy.url })}\n`)
  )
else {
  process.stderr.write(`unknown server kind ${kind}\n`)
  process.exit(2)
}
