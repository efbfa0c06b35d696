import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import { Effect, Exit, Scope } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { type ImportProbe, importExternalIds, importShape, importThroughApi } from "./imports.js"
import { median } from "./load.js"
import type { ScenarioContext } from "./mainServer.js"
import { pairedRounds } from "./measuring.js"
import { keysPerCompany, quick } from "./options.js"
import { serverArgs, start } from "./processes.js"
import { recordId } from "./recordIds.js"
import { runId, seedThroughApi } from "./requests.js"
import type { Row } from "./row.js"
import { type Company, createTenants } from "./setup.js"

/**
 * The rows of `rawImport` (servers.ts) on PostgreSQL with node-postgres, one statement per row as the
 * server's adapters issue them (no set-based writes), 50 products per transaction, including the
 * per-company advisory lock the change log takes. Returns records/s.
 */
const rawImportPg = async (url: string, companies: ReadonlyArray<Company>, prefix: string) => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const started = performance.now()
    let written = 0
    for (const [c, company] of companies.entries()) {
      const template = JSON.parse(
        (
          await client.query(
            "SELECT data FROM catalog_records WHERE company_id = $1 AND resource = 'products' AND id = $2",
            [company.id, company.productId]
          )
        ).rows[0].data
      ) as Record<string, unknown>
      const ids = importExternalIds(prefix, c)
      for (let i = 0; i < ids.length; i += 50) {
        await client.query("BEGIN")
        const at = new Date().toISOString()
        for (const externalId of ids.slice(i, i + 50)) {
          const lookup =
            "SELECT external_id, record_id FROM mappings WHERE company_id = $1 AND connection_id = $2 AND resource = $3 AND external_id = ANY($4)"
          if ((await client.query(lookup, [company.id, company.connectionId, "products", [externalId]])).rowCount! > 0)
            continue
          const categoryIds = (
            await client.query(lookup, [company.id, company.connectionId, "categories", ["sofas"]])
          ).rows.map((r) => r.record_id as string)
          const id = recordId()
          await client.query(
            "INSERT INTO mappings (company_id, connection_id, resource, external_id, record_id, created_at) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING RETURNING record_id",
            [company.id, company.connectionId, "products", externalId, id, at]
          )
          await client.query(
            "INSERT INTO catalog_records (company_id, resource, id, revision, data, category_ids, active, collection_id, brand_id, parent_id, created_at, updated_at, archived_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)",
            [
              company.id,
              "products",
              id,
              1,
              JSON.stringify({ ...template, name: externalId, category_ids: categoryIds }),
              JSON.stringify(categoryIds),
              0,
              null,
              null,
              null,
              at,
              at,
              null
            ]
          )
          for (const category of categoryIds)
            await client.query(
              "INSERT INTO record_categories (company_id, product_id, category_id) VALUES ($1,$2,$3)",
              [company.id, id, category]
            )
          // The change log's append on PostgreSQL: the company's head row moved in the statement that inserts.
          await client.query(
            `WITH added (ord, resource, record_id, revision, operation, origin_connection_id, at, visibility) AS
               (VALUES (1, $2, $3, CAST($4 AS INTEGER), $5, $6, $7, CAST($8 AS INTEGER))),
             head (base) AS (
               INSERT INTO change_heads (company_id, last_position) VALUES ($1, 1)
               ON CONFLICT (company_id) DO UPDATE SET last_position = change_heads.last_position + EXCLUDED.last_position
               RETURNING last_position - 1)
             INSERT INTO changes (company_id, company_position, resource, record_id, revision, operation, origin_connection_id, at, visibility)
             SELECT $1, head.base + added.ord, added.resource, added.record_id, added.revision, added.operation,
                    added.origin_connection_id, added.at, added.visibility
             FROM head CROSS JOIN added`,
            [company.id, "products", id, 1, "created", company.connectionId, at, 3]
          )
          written++
        }
        await client.query("COMMIT")
      }
    }
    return (written / (performance.now() - started)) * 1000
  } finally {
    await client.end()
  }
}

/**
 * Scenario 3 on PostgreSQL: a throwaway cluster (adapter-pg's testing helper; `DATABASE_URL` names an
 * existing server instead), a server on it with its job worker, the same import, against the same rows
 * in per-row statements (`rawImportPg`) into the same database (other external ids); alternating rounds.
 */
export const scenarioImportsPg = async (context: ScenarioContext): Promise<Array<Row>> => {
  const unavailable = PgTesting.unavailableReason()
  if (unavailable !== undefined)
    return [
      {
        scenario: "3 imports",
        measure: "10,000 products via POST /imports + job worker (PostgreSQL)",
        value: Number.NaN,
        unit: "",
        note: unavailable
      }
    ]
  const scope = Effect.runSync(Scope.make())
  try {
    const url = await Effect.runPromise(Scope.provide(PgTesting.freshDatabase, scope))
    const dir = join(context.work, "pg")
    mkdirSync(dir)
    const companies = await createTenants(dir, importShape.companies, keysPerCompany, undefined, url)
    const server = await start("server (PostgreSQL)", serverArgs(undefined), { DATA_DIR: dir, DATABASE_URL: url })
    const { default: pg } = await import("pg")
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await seedThroughApi(server.url, companies)
      const count = async (sql: string) => Number((await client.query(sql)).rows[0].n)
      const probe: ImportProbe = {
        applied: () => count("SELECT count(*) AS n FROM import_records WHERE status = 'applied'"),
        unfinished: () => count("SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')")
      }
      await importThroughApi(server.url, probe, companies, `pg-warm-${runId}`, 1)
      const { server: serverRps, baseline: raw } = await pairedRounds(
        "import (PostgreSQL)",
        "records/s",
        quick ? 2 : 3,
        async (round) => (await importThroughApi(server.url, probe, companies, `pg-${runId}-${round}`)).rps,
        (round) => rawImportPg(url, companies, `pg-raw-${runId}-${round}`)
      )
      const ratio = median(serverRps.map((s, i) => s / raw[i]!))
      return [
        {
          scenario: "3 imports",
          measure: "10,000 products via POST /imports + job worker (PostgreSQL)",
          value: median(serverRps),
          unit: "records/s",
          baseline: "node-postgres, same rows, per-row statements, 50-row transactions",
          baselineValue: median(raw),
          ratio,
          target: ">= 1.0",
          met: ratio >= 1,
          note: "throwaway PostgreSQL cluster on loopback (fsync off); server pool 10, 1 worker",
          rounds: { server: serverRps, baseline: raw }
        }
      ]
    } finally {
      await client.end()
      await server.stop()
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
