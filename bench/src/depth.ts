import { join } from "node:path"
import type { LoadRequest } from "./load.js"
import { median } from "./load.js"
import type { ScenarioContext } from "./mainServer.js"
import { compare } from "./measuring.js"
import { keysPerCompany, plan } from "./options.js"
import { serverArgs, start } from "./processes.js"
import { log } from "./report.js"
import { rotation, seedThroughApi } from "./requests.js"
import type { Row } from "./row.js"
import { cloneProducts, createTenants, query } from "./setup.js"

/**
 * Scenario 4 (`--only=deep`): a page deep in a list of 100,000 products and in a change feed of as
 * many changes, against page 1 on the same server: what a page costs at depth.
 */
export const scenarioDepth = async (context: ScenarioContext): Promise<Array<Row>> => {
  const { work } = context
  const rows: Array<Row> = []
  // One company with 100k products and 100k changes, on a server whose limits are raised for the
  // benchmark (one company is capped at 600 requests a minute otherwise).
  const deepDir = join(work, "deep")
  const deepDb = join(deepDir, "catalog-sync.db")
  const [deepCompany] = await createTenants(deepDir, 1, keysPerCompany)
  const deep = await start("server (deep)", serverArgs(undefined), {
    DATA_DIR: deepDir,
    BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000"
  })
  await seedThroughApi(deep.url, [deepCompany!])
  const seedStart = Date.now()
  cloneProducts(deepDb, [deepCompany!], plan.deepRecords - 1)
  log(`seeded ${plan.deepRecords} products and changes in ${Date.now() - seedStart} ms`)
  const records = query<{ n: number }>(
    deepDb,
    "SELECT count(*) AS n FROM catalog_records WHERE company_id = ? AND resource = 'products'",
    deepCompany!.id
  ).n
  const deepId = query<{ id: string }>(
    deepDb,
    "SELECT id FROM catalog_records WHERE company_id = ? AND resource = 'products' AND archived_at IS NULL ORDER BY id LIMIT 1 OFFSET ?",
    deepCompany!.id,
    records - 100
  ).id
  const changes = query<{ n: number }>(
    deepDb,
    "SELECT count(*) AS n FROM changes WHERE company_id = ?",
    deepCompany!.id
  ).n
  const deepPosition = query<{ position: number }>(
    deepDb,
    "SELECT company_position AS position FROM changes WHERE company_id = ? ORDER BY company_position LIMIT 1 OFFSET ?",
    deepCompany!.id,
    changes - 100
  ).position
  const one = [deepCompany!]
  const pairs = [
    {
      measure: `products list, page at record ${records - 99} vs page 1 (limit 50)`,
      first: "limit=50",
      deep: `limit=50&cursor=${deepId}`,
      path: "/api/v1/products"
    },
    {
      measure: `change feed, page at change ${changes - 99} vs page 1 (limit 50)`,
      first: "limit=50",
      deep: `limit=50&cursor=c2_${deepPosition.toString(36)}`,
      path: "/api/v1/changes"
    }
  ]
  for (const pair of pairs) {
    const requestFor = (q: string) => () => {
      const next = rotation(one)
      return {
        path: "/",
        next: () => ({ path: `${pair.path}?${q}`, headers: { authorization: `Bearer ${next().token}` } })
      } satisfies LoadRequest
    }
    const c = await compare(
      pair.measure,
      [
        { name: "deep", url: deep.url, request: requestFor(pair.deep) },
        { name: "first", url: deep.url, request: requestFor(pair.first) }
      ],
      8
    )
    // Cost ratio: time per deep page over time per first page (= first rps / deep rps).
    const cost = median(c.ratios("first", "deep"))
    rows.push({
      scenario: "4 depth",
      measure: pair.measure,
      value: c.median("deep"),
      unit: "req/s",
      baseline: "page 1, same server",
      baselineValue: c.median("first"),
      ratio: cost,
      target: "cost <= 1.2x page 1",
      met: cost <= 1.2,
      note: `ratio is deep cost / page-1 cost; ${records} records, ${changes} changes`,
      rounds: { deep: c.rps("deep"), first: c.rps("first") }
    })
  }
  await deep.stop()
  return rows
}
