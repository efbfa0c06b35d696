/**
 * The main server every scenario but 10 shares: its companies and keys, a category and 20 products per
 * company, and the answers the baselines of scenario 1 serve.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { keysPerCompany, plan } from "./options.js"
import { type Child, rssMb, serverArgs, start } from "./processes.js"
import { log } from "./report.js"
import { api, feedCursor, inBatches, seedThroughApi } from "./requests.js"
import { type Company, cloneProducts, createTenants, query } from "./setup.js"

export interface ScenarioContext {
  /** The main server (default limits), its companies (category `sofas`, products p0..p19 each). */
  readonly url: string
  readonly companies: ReadonlyArray<Company>
  /** The main server's database file, and a folder for the scenario's own files. */
  readonly db: string
  readonly work: string
}

export interface MainServer extends ScenarioContext {
  readonly server: Child
  /** Its data folder. */
  readonly dir: string
  /** fixtures.json: a record, a page and a feed page as the server answers them, for the baselines. */
  readonly fixtures: string
  /** Each company's up-to-date feed cursor, by index. */
  readonly cursors: ReadonlyArray<string>
}

/** Starts and seeds the main server; adds its SQLite settings and RSS after setup to `facts`. */
export const startMainServer = async (
  work: string,
  profileDir: string | undefined,
  facts: Record<string, unknown>
): Promise<MainServer> => {
  // The main server: the limits are still counted on every request, but raised: at ~3,000 requests a
  // second the rotation over the companies' keys (120/min each, 600/min per company) ran out within a
  // minute, and 429s are not what scenarios 1 and 2 measure.
  const mainDir = join(work, "main")
  const mainDb = join(mainDir, "catalog-sync.db")
  const companies = await createTenants(mainDir, plan.companies, keysPerCompany)
  log(`created ${companies.length} companies with ${keysPerCompany} keys each`)
  const real = await start("server", serverArgs(profileDir), {
    DATA_DIR: mainDir,
    BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000"
  })
  await seedThroughApi(real.url, companies)
  cloneProducts(mainDb, companies, 19)
  log("seeded a category and 20 products per company")
  facts.sqlite = {
    // The server runs on node:sqlite, the baselines on better-sqlite3's own build: each has its version.
    version: process.versions.sqlite,
    baseline_version: query<{ v: string }>(mainDb, "SELECT sqlite_version() AS v").v,
    journal_mode: query<{ journal_mode: string }>(mainDb, "PRAGMA journal_mode").journal_mode,
    synchronous: "NORMAL (set per connection by adapter-sqlite and the raw baseline)",
    foreign_keys: "ON"
  }
  facts.rss_mb_after_setup = rssMb(real)

  const fixtures = join(work, "fixtures.json")
  const first = companies[0]!
  const record = (await api(real.url, "GET", `/products/${first.productId}`, first.tokens[0]!)).record
  const page = await api(real.url, "GET", "/products?limit=20", first.tokens[0]!)
  delete page.request_id
  const cursors: Array<string> = []
  await inBatches(companies, 16, async (company) => {
    cursors[companies.indexOf(company)] = await feedCursor(real.url, company.tokens[0]!)
  })
  writeFileSync(
    fixtures,
    JSON.stringify({ record, page, feed: { records: [], next_cursor: cursors[0], has_more: false } })
  )
  return { server: real, url: real.url, companies, db: mainDb, work, dir: mainDir, fixtures, cursors }
}
