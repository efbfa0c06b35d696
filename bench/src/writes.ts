import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { type LoadResult, load, median } from "./load.js"
import type { MainServer } from "./mainServer.js"
import { checkStatuses, compare } from "./measuring.js"
import { connections, plan } from "./options.js"
import { start } from "./processes.js"
import { log } from "./report.js"
import { createRequest, updateRequest } from "./requests.js"
import type { Row } from "./row.js"
import { copyDatabase } from "./setup.js"

/**
 * Scenario 2 (`--only=upsert`): creates and updates through POST /products/upsert on the main server,
 * against raw node:http + better-sqlite3 running the same SQL and a minimal server with the fewest
 * statements, each on a copy of the main database; then latency at half of each one's saturation.
 */
export const scenarioWrites = async (main: MainServer): Promise<Array<Row>> => {
  const { server: real, companies, db: mainDb, work } = main
  const rows: Array<Row> = []
  const rawDb = join(work, "raw", "catalog-sync.db")
  mkdirSync(join(work, "raw"))
  copyDatabase(mainDb, rawDb)
  const raw = await start("raw-upsert", ["bench/dist/servers.js", "raw-upsert", "$PORT", rawDb])
  const minimalDb = join(work, "minimal", "catalog-sync.db")
  mkdirSync(join(work, "minimal"))
  copyDatabase(mainDb, minimalDb)
  const minimal = await start("minimal-upsert", ["bench/dist/servers.js", "minimal-upsert", "$PORT", minimalDb])
  const revisions = { server: companies.map(() => 1), raw: companies.map(() => 1), minimal: companies.map(() => 1) }
  const kinds = [
    {
      name: "create",
      measure: "POST /products/upsert (create)",
      request: {
        server: () => createRequest(companies),
        raw: () => createRequest(companies),
        minimal: () => createRequest(companies)
      }
    },
    {
      name: "update",
      measure: "POST /products/upsert (update)",
      request: {
        server: () => updateRequest(companies, revisions.server),
        raw: () => updateRequest(companies, revisions.raw),
        minimal: () => updateRequest(companies, revisions.minimal)
      }
    }
  ]
  for (const kind of kinds) {
    const c = await compare(kind.measure, [
      { name: "server", url: real.url, request: kind.request.server },
      { name: "raw", url: raw.url, request: kind.request.raw },
      { name: "minimal", url: minimal.url, request: kind.request.minimal }
    ])
    const ratio = median(c.ratios("server", "raw"))
    rows.push({
      scenario: "2 writes",
      measure: kind.measure,
      value: c.median("server"),
      unit: "req/s",
      baseline: "raw node:http + better-sqlite3, same SQL",
      baselineValue: c.median("raw"),
      ratio,
      target: ">= 0.30",
      met: ratio >= 0.3,
      rounds: { server: c.rps("server"), baseline: c.rps("raw") }
    })
    // How far our statement design is from the floor: the same-SQL server against the minimal one.
    const design = median(c.ratios("raw", "minimal"))
    rows.push({
      scenario: "2 writes",
      measure: `${kind.measure}, our SQL without the API`,
      value: c.median("raw"),
      unit: "req/s",
      baseline: "raw node:http + better-sqlite3, fewest statements",
      baselineValue: c.median("minimal"),
      ratio: design,
      target: ">= 0.40",
      met: design >= 0.4,
      rounds: { raw: c.rps("raw"), minimal: c.rps("minimal") }
    })
    rows.push({
      scenario: "2 writes",
      measure: `${kind.measure} against the floor`,
      value: c.median("server"),
      unit: "req/s",
      baseline: "raw node:http + better-sqlite3, fewest statements",
      baselineValue: c.median("minimal"),
      ratio: median(c.ratios("server", "minimal")),
      rounds: { server: c.rps("server"), minimal: c.rps("minimal") }
    })
    // Latency at half of each server's own saturation, alternating.
    const half = { server: c.median("server") / 2, raw: c.median("raw") / 2 }
    const lat: Record<"server" | "raw", Array<LoadResult>> = { server: [], raw: [] }
    for (let round = 0; round < plan.latencyRounds; round++) {
      const order: Array<"server" | "raw"> = round % 2 === 0 ? ["server", "raw"] : ["raw", "server"]
      for (const side of order) {
        const result = await load(side === "server" ? real.url : raw.url, kind.request[side](), {
          seconds: plan.seconds,
          connections,
          overallRate: half[side]
        })
        checkStatuses(`${kind.measure} latency ${side}`, result)
        lat[side].push(result)
      }
    }
    for (const p of ["p50", "p99"] as const) {
      const s = median(lat.server.map((r) => r[p]))
      const b = median(lat.raw.map((r) => r[p]))
      rows.push({
        scenario: "2 writes",
        measure: `${kind.name} latency ${p} at half saturation`,
        value: s,
        unit: "ms",
        baseline: "raw at half of its saturation",
        baselineValue: b,
        ratio: s / b,
        note: `offered ${Math.round(half.server)}/s vs ${Math.round(half.raw)}/s`,
        rounds: { server: lat.server.map((r) => r[p]), baseline: lat.raw.map((r) => r[p]) }
      })
    }
    log(`${kind.measure} latency done`)
  }
  await raw.stop()
  await minimal.stop()
  return rows
}
