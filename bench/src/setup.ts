/** Tenants, keys and seeded records for the benchmark, written through the Admin service and SQL. */
import { Admin, Ids } from "@catalog-sync/core"
import Database from "better-sqlite3"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { appendChange } from "./changeSql.js"
import { PersistenceLive } from "../../packages/server/src/Server.js"
import type { ServerConfig } from "../../packages/server/src/ServerConfig.js"

export interface Company {
  readonly id: string
  /** The first connection's id. */
  readonly connectionId: string
  /** Every connection's keys, taking the connections in turn (the first key of each, then the second...). */
  readonly tokens: ReadonlyArray<string>
  readonly connections: ReadonlyArray<{ readonly id: string; readonly tokens: ReadonlyArray<string> }>
  productId: string
}

const defaultScopes = ["catalog:read", "catalog:write", "prices:read", "prices:write"]

/**
 * Migrates the database in `dataDir` (or at `postgresUrl`) and creates `count` companies with `connections`
 * connections (one unless given) of `keys` keys each.
 */
export const createTenants = (
  dataDir: string,
  count: number,
  keys: number,
  scopes: ReadonlyArray<string> = defaultScopes,
  postgresUrl?: string,
  languages: ReadonlyArray<string> = ["de"],
  connections = 1
): Promise<Array<Company>> => {
  const config = {
    port: 0,
    host: "127.0.0.1",
    dataDir,
    databaseFile: Option.none(),
    shutdownTimeoutSeconds: 1,
    logLevel: "Warn",
    ...(postgresUrl === undefined
      ? {}
      : { postgres: { url: Redacted.make(postgresUrl), poolSize: 2, statementTimeoutMillis: 0 } })
  } as ServerConfig
  const program = Effect.gen(function* () {
    const context = yield* Layer.build(
      Admin.Admin.Default.pipe(Layer.provide(PersistenceLive(config)), Layer.provide(Ids.IdsLive))
    )
    const admin = Context.get(context, Admin.Admin)
    const out: Array<Company> = []
    const stamp = Date.now().toString(36)
    for (let i = 0; i < count; i++) {
      const company = yield* admin.createCompany({
        name: `Bench ${i}`,
        currency: "EUR",
        main_language: "en",
        languages: [...languages],
        tax_model: "inclusive",
        tax_rates: ["20"],
        storage_slug: `bench-${stamp}-${i}`,
        granted_scopes: [...scopes] as never
      })
      const made: Array<{ id: string; tokens: Array<string> }> = []
      for (let c = 0; c < connections; c++) {
        const connection = yield* admin.createConnection(company.id, c === 0 ? "ERP" : `ERP ${c + 1}`)
        const tokens: Array<string> = []
        for (let k = 0; k < keys; k++) {
          const created = yield* admin.createKey({
            connection_id: connection.id,
            scopes: [...scopes] as never,
            lifetime_days: 30
          })
          tokens.push(created.token)
        }
        made.push({ id: connection.id, tokens })
      }
      const tokens = Array.from({ length: keys }, (_, k) => made.map((c) => c.tokens[k]!)).flat()
      out.push({ id: company.id, connectionId: made[0]!.id, tokens, connections: made, productId: "" })
    }
    return out
  })
  return Effect.runPromise(Effect.scoped(program) as Effect.Effect<Array<Company>, unknown>)
}

/**
 * Copies each company's product `p0` (created through the API) `copies` times with new ids, with the
 * mapping (`p1`, `p2`, ...), category rows and a `created` change each: the rows the API would write,
 * without going through it.
 */
export const cloneProducts = (file: string, companies: ReadonlyArray<Company>, copies: number) => {
  const db = new Database(file)
  db.pragma("busy_timeout = 5000")
  db.pragma("synchronous = NORMAL")
  const record = db.prepare("SELECT * FROM catalog_records WHERE company_id = ? AND resource = 'products' AND id = ?")
  const categories = db.prepare("SELECT category_id FROM record_categories WHERE company_id = ? AND product_id = ?")
  const insertRecord = db.prepare(
    "INSERT INTO catalog_records (company_id, resource, id, revision, data, category_ids, active, collection_id, brand_id, parent_id, created_at, updated_at, archived_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
  )
  const insertMapping = db.prepare(
    "INSERT INTO mappings (company_id, connection_id, resource, external_id, record_id, created_at) VALUES (?,?,?,?,?,?)"
  )
  const insertCategory = db.prepare(
    "INSERT INTO record_categories (company_id, product_id, category_id) VALUES (?,?,?)"
  )
  const insertChange = appendChange(db)
  const run = db.transaction(() => {
    for (const company of companies) {
      const row = record.get(company.id, company.productId) as Record<
        "data" | "category_ids" | "active" | "collection_id" | "brand_id" | "parent_id" | "updated_at",
        unknown
      > & { readonly created_at: string }
      const cats = (categories.all(company.id, company.productId) as Array<{ category_id: string }>).map(
        (c) => c.category_id
      )
      for (let i = 1; i <= copies; i++) {
        const id = randomUUID()
        insertRecord.run(
          company.id,
          "products",
          id,
          1,
          row.data,
          row.category_ids,
          row.active,
          row.collection_id,
          row.brand_id,
          row.parent_id,
          row.created_at,
          row.updated_at,
          null
        )
        insertMapping.run(company.id, company.connectionId, "products", `p${i}`, id, row.created_at)
        for (const c of cats) insertCategory.run(company.id, id, c)
        insertChange.run(company.id, "products", id, 1, "created", company.connectionId, row.created_at, 3)
      }
    }
  })
  run()
  db.close()
}

/** A consistent copy of a live database (the raw baseline writes to its own copy). */
export const copyDatabase = (from: string, to: string) => {
  const db = new Database(from)
  db.pragma("busy_timeout = 5000")
  db.prepare("VACUUM INTO ?").run(to)
  db.close()
}

export const query = <A>(file: string, sql: string, ...params: Array<unknown>): A => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(sql).get(...params) as A
  } finally {
    db.close()
  }
}
