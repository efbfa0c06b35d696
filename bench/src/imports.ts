/**
 * Scenario 3 on SQLite (`--only=imports`), and the import client and job watch it shares with the
 * PostgreSQL variant (importsPg.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import Database from "better-sqlite3"
import { median } from "./load.js"
import type { ScenarioContext } from "./mainServer.js"
import { pairedRounds } from "./measuring.js"
import { quick } from "./options.js"
import { runNode, sleep, start } from "./processes.js"
import { warnings } from "./report.js"
import { api, runId } from "./requests.js"
import type { Row } from "./row.js"
import { type Company, copyDatabase } from "./setup.js"

/** 10,000 products: 10 companies (one connection each) x 20 jobs (the pending limit) x 50 records. */
export const importShape = { companies: 10, jobsPerCompany: 20, perJob: 50 }
export const importExternalIds = (prefix: string, c: number) =>
  Array.from({ length: importShape.jobsPerCompany * importShape.perJob }, (_, i) => `${prefix}-${c}-${i}`)

export interface ImportProbe {
  /** Import records applied so far, and jobs queued or running. */
  readonly applied: () => Promise<number>
  readonly unfinished: () => Promise<number>
}

const sqliteProbe = (db: Database.Database): ImportProbe => {
  const applied = db.prepare("SELECT count(*) AS n FROM import_records WHERE status = 'applied'")
  const unfinished = db.prepare("SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')")
  return {
    applied: async () => (applied.get() as { n: number }).n,
    unfinished: async () => (unfinished.get() as { n: number }).n
  }
}

/**
 * Submits every company's jobs (companies in parallel, each one's 20 jobs in turn) and waits until the
 * job worker has finished them all, watching the jobs table beside the server (WAL lets a reader in).
 * Returns records/s from the first POST to the last job's end.
 */
export const importThroughApi = async (
  url: string,
  probe: ImportProbe,
  companies: ReadonlyArray<Company>,
  prefix: string,
  jobsPerCompany = importShape.jobsPerCompany
) => {
  {
    const before = await probe.applied()
    const started = performance.now()
    await Promise.all(
      companies.map(async (company, c) => {
        const ids = importExternalIds(prefix, c)
        for (let j = 0; j < jobsPerCompany; j++) {
          const records = ids.slice(j * importShape.perJob, (j + 1) * importShape.perJob).map((externalId) => ({
            resource: "products",
            body: { external_id: externalId, name: externalId, category_ids: [{ external_id: "sofas" }] }
          }))
          await api(url, "POST", "/imports", company.tokens[j % company.tokens.length]!, { records })
        }
      })
    )
    while ((await probe.unfinished()) > 0) await sleep(10)
    const ms = performance.now() - started
    const applied = (await probe.applied()) - before
    const expected = companies.length * jobsPerCompany * importShape.perJob
    if (applied !== expected) warnings.push(`import ${prefix}: ${applied} of ${expected} records applied`)
    return { ms, rps: (applied / ms) * 1000 }
  }
}

/**
 * Scenario 3: 10,000 products in jobs of 50 through POST /imports and the job worker of the main server,
 * records/s from the first POST to the last job's end, against the same product rows written by
 * better-sqlite3 in raw 50-row transactions on a copy of the same database; alternating rounds.
 */
export const scenarioImports = async (context: ScenarioContext): Promise<Array<Row>> => {
  const companies = context.companies.slice(0, importShape.companies)
  const rawDb = join(context.work, "raw-import", "catalog-sync.db")
  mkdirSync(join(context.work, "raw-import"))
  copyDatabase(context.db, rawDb)
  const rawRound = async (prefix: string) => {
    const planFile = join(context.work, `raw-import-${prefix}.json`)
    writeFileSync(
      planFile,
      JSON.stringify({
        companies: companies.map((c, i) => ({
          id: c.id,
          connectionId: c.connectionId,
          productId: c.productId,
          externalIds: importExternalIds(prefix, i)
        }))
      })
    )
    const { ms } = JSON.parse(await runNode(["bench/dist/servers.js", "raw-import", rawDb, planFile])) as { ms: number }
    return { ms, rps: ((companies.length * importShape.jobsPerCompany * importShape.perJob) / ms) * 1000 }
  }
  // The import floor (minimalImport.ts) on its own copy, taken before any round writes.
  const floorDb = join(context.work, "minimal-import", "catalog-sync.db")
  mkdirSync(join(context.work, "minimal-import"))
  copyDatabase(context.db, floorDb)
  const db = new Database(context.db, { readonly: true })
  const probe = sqliteProbe(db)
  await importThroughApi(context.url, probe, companies, `imp-warm-${runId}`, 1)
  // A round is a few seconds, and the raw rounds alone differ by up to 1.6x on a shared machine: more
  // paired rounds make the median ratio steadier.
  const { server, baseline: raw } = await pairedRounds(
    "import",
    "records/s",
    quick ? 3 : 5,
    async (round) => (await importThroughApi(context.url, probe, companies, `imp-${runId}-${round}`)).rps,
    async (round) => (await rawRound(`imp-${runId}-${round}`)).rps
  )
  db.close()
  const ratio = median(server.map((s, i) => s / raw[i]!))
  // The same client load on the floor, paired with raw rounds of its own: how close to the raw rows any
  // import that does an import's work (request, job, durable per-record results) gets on this machine.
  const floorServer = await start("minimal-import", ["bench/dist/servers.js", "minimal-import", "$PORT", floorDb])
  const floorDbReader = new Database(floorDb, { readonly: true })
  const floorProbe = sqliteProbe(floorDbReader)
  const floorRounds = await (async () => {
    try {
      await importThroughApi(floorServer.url, floorProbe, companies, `impf-warm-${runId}`, 1)
      return await pairedRounds(
        "import floor",
        "records/s",
        quick ? 3 : 5,
        async (round) => (await importThroughApi(floorServer.url, floorProbe, companies, `impf-${runId}-${round}`)).rps,
        async (round) => (await rawRound(`impf-${runId}-${round}`)).rps
      )
    } finally {
      floorDbReader.close()
      await floorServer.stop()
    }
  })()
  const floor = floorRounds.server
  return [
    {
      scenario: "3 imports",
      measure: "10,000 products via POST /imports + job worker (SQLite)",
      value: median(server),
      unit: "records/s",
      baseline: "better-sqlite3, same rows, 50-row transactions",
      baselineValue: median(raw),
      ratio,
      target: ">= 0.50",
      met: ratio >= 0.5,
      note: "200 jobs of 50 products over 10 connections, 1 worker; from the first POST to the last job's end",
      rounds: { server, baseline: raw }
    },
    {
      scenario: "3 imports",
      measure: "10,000 products via POST /imports (SQLite) against the import floor",
      value: median(server),
      unit: "records/s",
      baseline: "node:http + better-sqlite3, POST /imports + job in the fewest statements",
      baselineValue: median(floor),
      ratio: median(server) / median(floor),
      note: "the floor's rounds follow the server's: ratio of the medians"
    },
    {
      scenario: "3 imports",
      measure: "the import floor against raw 50-row transactions (SQLite)",
      value: median(floor),
      unit: "records/s",
      baseline: "better-sqlite3, same rows, 50-row transactions",
      baselineValue: median(floorRounds.baseline),
      ratio: median(floor.map((f, i) => f / floorRounds.baseline[i]!)),
      note: "what any import doing an import's work reaches of the raw rows on this machine",
      rounds: { floor, baseline: floorRounds.baseline }
    }
  ]
}
