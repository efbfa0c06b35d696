/**
 * `npm run bench [-- --quick] [-- --only=get,list,feed,upsert,imports,deep,media,tracing,overload,loader,loader-memory,pg-distance] [-- --profile]`
 * `[-- --overload-bursts=6] [-- --heap-snapshots]`
 * (`loader-memory`, over a generated 1 GiB input, and `pg-distance` (pgDistance.ts) run only when named. `--heap-snapshots` writes the
 * overload server's heap after its first, middle and last burst and lists what grew; the snapshots
 * themselves raise its RSS.)
 *
 * Starts the real server and baseline servers as child processes on loopback, drives them with
 * autocannon from this process (no pipelining, fixed connections), alternates the servers round by
 * round and reports the median of the paired ratios. Prints a table and writes bench/results/<time>.json.
 * Timing never fails anything: targets are recorded, not asserted.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { recordId } from "./recordIds.js"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { createServer as createHttpServer } from "node:http"
import { cpus, freemem, loadavg, platform, release, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import Database from "better-sqlite3"
import { driverFor } from "better-sqlite3/driver"
import { Effect, Exit, Scope } from "effect"
import { WebSocket } from "undici"
import { type LoadRequest, type LoadResult, load, median } from "./load.js"
import { scenarioLoader, scenarioLoaderMemory } from "./loader.js"
import { scenarioPgDistance } from "./pgDistance.js"
import type { Row } from "./row.js"
import {
  api,
  createRequest,
  feedCursor,
  feedRequest,
  getRequest,
  inBatches,
  listRequest,
  rotation,
  runId,
  seedThroughApi,
  updateRequest
} from "./requests.js"
import { type Company, cloneProducts, copyDatabase, createTenants, query } from "./setup.js"
import { grewMost, snapshotsIn, summarize } from "./heapSnapshots.js"

const root = process.cwd()
const args = process.argv.slice(2)
const quick = args.includes("--quick")
const profile = args.includes("--profile")
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",")
const wanted = (name: string) => only === undefined || only.includes(name)
const overloadBursts = Math.max(2, Number(args.find((a) => a.startsWith("--overload-bursts="))?.slice(18) ?? 6) || 6)
const heapSnapshots = args.includes("--heap-snapshots")

const plan = quick
  ? { rounds: 3, seconds: 2, warmSeconds: 1, latencyRounds: 1, companies: 60, deepRecords: 100_000, overloadSeconds: 3 }
  : {
      rounds: 5,
      seconds: 5,
      warmSeconds: 2,
      latencyRounds: 3,
      companies: 150,
      deepRecords: 100_000,
      overloadSeconds: 8
    }
const connections = 32
const keysPerCompany = 5
const started = Date.now()
const log = (message: string) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`)

/**
 * Rounds of a paired comparison, the order of the two sides swapped every other round so that drift
 * hits both alike; logs each round's pair.
 */
const pairedRounds = async (
  label: string,
  unit: string,
  rounds: number,
  server: (round: number) => Promise<number>,
  baseline: (round: number) => Promise<number>
) => {
  const figures = { server: [] as Array<number>, baseline: [] as Array<number> }
  for (let round = 0; round < rounds; round++) {
    const sides = round % 2 === 0 ? (["server", "baseline"] as const) : (["baseline", "server"] as const)
    for (const side of sides) figures[side].push(await (side === "server" ? server : baseline)(round))
    log(
      `${label} round ${round + 1}: server ${Math.round(figures.server[round]!)} ${unit}, baseline ${Math.round(figures.baseline[round]!)} ${unit}`
    )
  }
  return figures
}

// ---------------------------------------------------------------------------------------------------
// processes

interface Child {
  readonly name: string
  readonly url: string
  readonly process: ChildProcess
  readonly stop: () => Promise<void>
  /** What it wrote to stderr so far. */
  readonly stderr: () => string
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

const children: Array<Child> = []

const start = async (name: string, argv: Array<string>, env: Record<string, string> = {}): Promise<Child> => {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    argv.map((a) => a.replace("$PORT", String(port))),
    {
      cwd: root,
      // Every load generator connects from 127.0.0.1: the per-address cap would refuse the overload's 128.
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: "1000",
        ...env
      },
      stdio: ["ignore", "ignore", "pipe"]
    }
  )
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr}`)
    try {
      const response = await fetch(`${url}/health`)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error(`${name} did not start: ${stderr}`)
    await sleep(50)
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
    })
  const handle = { name, url, process: child, stop, stderr: () => stderr }
  children.push(handle)
  return handle
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const rssMb = (child: Child): number => {
  try {
    const status = readFileSync(`/proc/${child.process.pid}/status`, "utf8")
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
    return Math.round(kb / 102.4) / 10
  } catch {
    return Number.NaN
  }
}

/**
 * The memory of a child started with `--inspect=127.0.0.1:0`, read after a full garbage collection over the
 * DevTools protocol: what it holds live, whatever point of its collection cycle it was at.
 */
const inspectMemory = async (child: Child) => {
  for (let i = 0; !/ws:\/\/\S+/.test(child.stderr()); i++) {
    if (i > 200) throw new Error(`${child.name} printed no inspector URL`)
    await sleep(50)
  }
  const socket = new WebSocket(/(ws:\/\/\S+)/.exec(child.stderr())![1]!)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  const pending = new Map<number, (reply: any) => void>()
  socket.onmessage = (event) => {
    const reply = JSON.parse(String(event.data))
    pending.get(reply.id)?.(reply)
    pending.delete(reply.id)
  }
  let next = 0
  const send = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const id = ++next
      pending.set(id, resolve)
      socket.send(JSON.stringify({ id, method, params }))
    })
  return {
    afterGc: async (): Promise<{ readonly rss: number; readonly heapUsed: number }> => {
      await send("HeapProfiler.collectGarbage")
      const reply = await send("Runtime.evaluate", {
        expression: "JSON.stringify(process.memoryUsage())",
        returnByValue: true
      })
      const usage = JSON.parse(reply.result.result.value)
      const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
      return { rss: mb(usage.rss), heapUsed: mb(usage.heapUsed) }
    },
    close: () => socket.close()
  }
}

const serverArgs = (profileDir: string | undefined) => [
  ...(profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]),
  "packages/server/dist/cli.js",
  "serve"
]

// ---------------------------------------------------------------------------------------------------
// measuring

const rows: Array<Row> = []
const warnings: Array<string> = []

interface Variant {
  readonly name: string
  readonly url: string
  readonly request: () => LoadRequest
}

const checkStatuses = (label: string, result: LoadResult) => {
  // Updates catch up with a 409 for a request cut off at the end of the previous run: expected, few.
  const bad = Object.entries(result.statuses).filter(
    ([code]) => !code.startsWith("2") && !(code === "409" && label.includes("(update)"))
  )
  if (bad.length > 0 || result.errors > 0)
    warnings.push(`${label}: non-2xx ${JSON.stringify(Object.fromEntries(bad))}, errors ${result.errors}`)
}

/**
 * Throughput of several servers in alternating rounds (the order is reversed every other round); the
 * first variant is compared with each other one by the median of the per-round ratios.
 */
const compare = async (label: string, variants: ReadonlyArray<Variant>, conns = connections) => {
  for (const v of variants) await load(v.url, v.request(), { seconds: plan.warmSeconds, connections: conns })
  const results: Record<string, Array<LoadResult>> = Object.fromEntries(variants.map((v) => [v.name, []]))
  for (let round = 0; round < plan.rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse()
    for (const v of order) {
      const result = await load(v.url, v.request(), { seconds: plan.seconds, connections: conns })
      checkStatuses(`${label} ${v.name} round ${round + 1}`, result)
      results[v.name]!.push(result)
    }
    log(
      `${label} round ${round + 1}: ${variants.map((v) => `${v.name} ${Math.round(results[v.name]![round]!.rps)}/s`).join(", ")}`
    )
  }
  const rps = (name: string) => results[name]!.map((r) => r.rps)
  const ratios = (a: string, b: string) => rps(a).map((x, i) => x / rps(b)[i]!)
  return { results, rps, ratios, median: (name: string) => median(rps(name)) }
}

const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? "" : n.toFixed(digits))

// ---------------------------------------------------------------------------------------------------
// machine facts

const versionOf = (pkg: string) => {
  try {
    return (JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string })
      .version
  } catch {
    return "missing"
  }
}

const machine = () => ({
  cores: cpus().length,
  cpu: cpus()[0]?.model,
  memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  free_memory_gb: Math.round((freemem() / 2 ** 30) * 10) / 10,
  os: `${platform()} ${release()}`,
  // Other work on the machine slows every figure: the load average over 1, 5 and 15 minutes at the start.
  load_average: loadavg().map((n) => Math.round(n * 10) / 10),
  node: process.version,
  packages: Object.fromEntries(
    [
      "effect",
      "@effect/platform",
      "@effect/platform-node",
      "@effect/sql",
      "@effect/sql-sqlite-node",
      "better-sqlite3",
      "autocannon"
    ].map((p) => [p, versionOf(p === "better-sqlite3" ? driverFor(process.versions) : p)])
  )
})

// ---------------------------------------------------------------------------------------------------
// scenarios

interface ScenarioContext {
  /** The main server (default limits), its companies (category `sofas`, products p0..p19 each). */
  readonly url: string
  readonly companies: ReadonlyArray<Company>
  /** The main server's database file, and a folder for the scenario's own files. */
  readonly db: string
  readonly work: string
}

const runNode = (argv: Array<string>) =>
  new Promise<string>((resolve, reject) =>
    execFile(process.execPath, argv, { cwd: root, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${argv.join(" ")}: ${stderr}`)) : resolve(stdout)
    )
  )

/** 10,000 products: 10 companies (one connection each) x 20 jobs (the pending limit) x 50 records. */
const importShape = { companies: 10, jobsPerCompany: 20, perJob: 50 }
const importExternalIds = (prefix: string, c: number) =>
  Array.from({ length: importShape.jobsPerCompany * importShape.perJob }, (_, i) => `${prefix}-${c}-${i}`)

/**
 * Submits every company's jobs (companies in parallel, each one's 20 jobs in turn) and waits until the
 * job worker has finished them all, watching the jobs table beside the server (WAL lets a reader in).
 * Returns records/s from the first POST to the last job's end.
 */
interface ImportProbe {
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

const importThroughApi = async (
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
const scenarioImports = async (context: ScenarioContext): Promise<Array<Row>> => {
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
const scenarioImportsPg = async (context: ScenarioContext): Promise<Array<Row>> => {
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
    const url = await Effect.runPromise(Scope.extend(PgTesting.freshDatabase, scope))
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

/**
 * A 4000x3000 (12 MP) photo-like JPEG: smooth gradients and waves with some grain, so that it neither
 * compresses to nothing nor to noise. `quality` sets its size (a 10 MB upload needs a high one).
 */
const photo = async (file: string, quality: number, grain: number) => {
  const { default: sharp } = await import("sharp")
  const width = 4000
  const height = 3000
  const pixels = Buffer.alloc(width * height * 3)
  let seed = 1
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      const noise = ((seed >> 16) % (2 * grain + 1)) - grain
      const i = (y * width + x) * 3
      pixels[i] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(x / 150) * Math.cos(y / 210) + noise))
      pixels[i + 1] = Math.max(0, Math.min(255, (x * 255) / width + noise))
      pixels[i + 2] = Math.max(0, Math.min(255, (y * 255) / height + noise))
    }
  }
  await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality })
    .toFile(file)
  return readFileSync(file).byteLength
}

/**
 * POST /media of `file` made unique with a JPEG comment segment after the start marker: the server
 * reuses the processed file of an identical source, which would measure nothing.
 */
const uploadMedia = async (url: string, token: string, file: string, externalId: string) => {
  const jpeg = readFileSync(file)
  const comment = Buffer.from(externalId)
  const segment = Buffer.concat([
    Buffer.from([0xff, 0xfe, (comment.length + 2) >> 8, (comment.length + 2) & 0xff]),
    comment
  ])
  const unique = Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)])
  const form = new FormData()
  form.append("external_id", externalId)
  form.append("name", externalId)
  form.append("purpose", "catalog")
  form.append("file", new Blob([unique], { type: "image/jpeg" }), "photo.jpg")
  const response = await fetch(`${url}/api/v1/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "idempotency-key": `bench-${randomUUID()}` },
    body: form
  })
  const body = await response.text()
  if (response.status !== 202 && response.status !== 200 && response.status !== 201)
    throw new Error(`POST /media: ${response.status} ${body}`)
}

const mediaScopes = ["catalog:read", "catalog:write", "media:read", "media:write"]

/**
 * Scenario 5, on its own server (one company, one job worker): `count` 12 MP JPEGs uploaded through
 * POST /media one after the other, time per image from the first POST until the last job's end (the
 * worker's first poll aside, uploads overlap processing), against the same number of bare sharp
 * pipelines with the server's options in a child process; alternating rounds. Then the RSS of a server
 * without workers while 10 MB uploads arrive 8 at a time: uploads stream to staging files, so RSS should
 * stay near its idle level plus the sockets' buffers, not grow with the bytes in flight.
 */
const scenarioMedia = async (context: ScenarioContext): Promise<Array<Row>> => {
  const dir = join(context.work, "media")
  mkdirSync(dir)
  const source = join(dir, "photo-12mp.jpg")
  const sourceBytes = await photo(source, 90, 8)
  const uploadBatches = quick ? 2 : 4
  // One company for the processing rounds, one per upload batch (each connection may stage 100 MB).
  const [tenant, ...uploaders] = await createTenants(join(dir, "data"), 1 + uploadBatches, keysPerCompany, mediaScopes)
  // Polling every 50 ms rather than 250: the idle worker's first look would otherwise count in the figure.
  const server = await start("server (media)", serverArgs(undefined), {
    DATA_DIR: join(dir, "data"),
    JOB_POLL_MILLISECONDS: "50"
  })
  const db = new Database(join(dir, "data", "catalog-sync.db"), { readonly: true })
  const count = quick ? 4 : 8
  const unfinished = db.prepare("SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')")
  const failed = db.prepare("SELECT count(*) AS n FROM jobs WHERE kind = 'media' AND state <> 'completed'")
  let uploads = 0
  const serverRound = async (n: number) => {
    const started = performance.now()
    for (let i = 0; i < n; i++)
      await uploadMedia(
        server.url,
        tenant!.tokens[uploads % tenant!.tokens.length]!,
        source,
        `photo-${runId}-${uploads++}`
      )
    while ((unfinished.get() as { n: number }).n > 0) await sleep(10)
    return (performance.now() - started) / n
  }
  const sharpRound = async (n: number) =>
    (JSON.parse(await runNode(["bench/dist/servers.js", "raw-media", source, String(n)])) as { ms: number }).ms / n
  const rows: Array<Row> = []
  try {
    await serverRound(1)
    await sharpRound(1)
    const perImage = await pairedRounds(
      "media",
      "ms/image",
      quick ? 2 : 3,
      () => serverRound(count),
      () => sharpRound(count)
    )
    const bad = (failed.get() as { n: number }).n
    if (bad > 0) warnings.push(`media: ${bad} jobs did not complete`)
    const ratio = median(perImage.server.map((s, i) => s / perImage.baseline[i]!))
    rows.push({
      scenario: "5 media",
      measure: `12 MP JPEG (${(sourceBytes / 2 ** 20).toFixed(1)} MB) -> WebP 1500 px, POST /media + job`,
      value: median(perImage.server),
      unit: "ms/image",
      baseline: "bare sharp, same options",
      baselineValue: median(perImage.baseline),
      ratio,
      target: "<= 1.10x",
      met: ratio <= 1.1,
      note: `${count} uploads in turn, first POST to last job's end; 1 worker`,
      rounds: { server: perImage.server, baseline: perImage.baseline }
    })
  } finally {
    db.close()
    await server.stop()
  }

  // RSS during 10 MB uploads, on a server that does not process them (no worker), so only the uploads count.
  const big = join(dir, "photo-10mb.jpg")
  let bigBytes = await photo(big, 100, 40)
  if (bigBytes > 10 * 2 ** 20) bigBytes = await photo(big, 97, 40)
  const uploadsOnly = await start("server (uploads)", serverArgs(undefined), {
    DATA_DIR: join(dir, "data"),
    JOB_WORKERS: "0"
  })
  try {
    const idle = rssMb(uploadsOnly)
    let peak = idle
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(uploadsOnly))
    }, 20)
    const concurrent = 8
    const batches = uploadBatches
    const peaks: Array<number> = []
    for (let b = 0; b < batches; b++) {
      await Promise.all(
        Array.from({ length: concurrent }, (_, i) =>
          uploadMedia(uploadsOnly.url, uploaders[b]!.tokens[i % keysPerCompany]!, big, `big-${runId}-${b}-${i}`)
        )
      )
      peaks.push(peak)
    }
    clearInterval(sampler)
    const inFlight = (concurrent * bigBytes) / 2 ** 20
    // Bounded: the later batches (the same bytes again) add nothing to the first batch's peak.
    const growth = (peaks[peaks.length - 1]! - peaks[0]!) / peaks[0]!
    rows.push({
      scenario: "5 media",
      measure: `RSS during ${batches} batches of ${concurrent} concurrent ${(bigBytes / 2 ** 20).toFixed(1)} MB uploads (no worker)`,
      value: growth * 100,
      unit: "% RSS growth batch 1->last",
      target: "< 10 % (no growth with uploaded bytes)",
      met: growth < 0.1,
      note: `RSS MB idle ${idle}, peak after each batch ${peaks.join(" -> ")}; ${Math.round(inFlight)} MB in flight per batch, ${Math.round(inFlight * batches)} MB uploaded`
    })
  } finally {
    await uploadsOnly.stop()
  }
  return rows
}

/**
 * Scenario 9: what tracing costs. Three servers on copies of the main database: tracing off (as shipped),
 * on keeping every trace, on keeping 1 % (`parentbased_traceidratio`); spans go over OTLP/HTTP to a sink in
 * this process that reads and drops them. GET /products/:id and creates, alternating rounds; the ratios
 * are each traced server against the untraced one.
 */
const scenarioTracing = async (context: ScenarioContext): Promise<Array<Row>> => {
  const sink = createHttpServer((request, response) => {
    request.resume()
    // An empty export response in the request's encoding: no bytes in protobuf (the default), `{}` in JSON.
    const protobuf = request.headers["content-type"] === "application/x-protobuf"
    request.on("end", () =>
      protobuf
        ? response.writeHead(200, { "content-type": "application/x-protobuf" }).end()
        : response.writeHead(200, { "content-type": "application/json" }).end("{}")
    )
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  const endpoint = `http://127.0.0.1:${(sink.address() as { port: number }).port}`
  const variants = [
    { name: "off", env: {} },
    { name: "on 100%", env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: "parentbased_always_on" } },
    {
      name: "on 1%",
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.01"
      }
    }
  ]
  const servers: Array<Child> = []
  try {
    for (const variant of variants) {
      const dir = join(context.work, `tracing-${servers.length}`)
      mkdirSync(dir)
      copyDatabase(context.db, join(dir, "catalog-sync.db"))
      servers.push(await start(`tracing ${variant.name}`, serverArgs(undefined), { DATA_DIR: dir, ...variant.env }))
    }
    const rows: Array<Row> = []
    const measures = [
      { measure: "GET /products/:id", request: () => getRequest(context.companies) },
      { measure: "POST /products/upsert (create)", request: () => createRequest(context.companies) }
    ]
    for (const { measure, request } of measures) {
      const c = await compare(
        `${measure} tracing`,
        servers.map((server, i) => ({ name: variants[i]!.name, url: server.url, request }))
      )
      for (const on of ["on 100%", "on 1%"]) {
        rows.push({
          scenario: "9 tracing",
          measure: `${measure}, tracing ${on}`,
          value: c.median(on),
          unit: "req/s",
          baseline: "the same server, tracing off",
          baselineValue: c.median("off"),
          ratio: median(c.ratios(on, "off")),
          note: "spans exported over OTLP/HTTP to a sink on the load generator's core",
          rounds: { server: c.rps(on), baseline: c.rps("off") }
        })
      }
    }
    return rows
  } finally {
    for (const server of servers) await server.stop()
    sink.close()
  }
}

const main = async () => {
  if (!existsSync(join(root, "packages/server/dist/cli.js")))
    throw new Error("build the server first: npm run build -w @catalog-sync/server")
  const resultsDir = join(root, "bench/results")
  mkdirSync(resultsDir, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, "-")
  const profileDir = profile ? join(resultsDir, `profiles-${stamp}`) : undefined
  const work = mkdtempSync(join(tmpdir(), "catalog-sync-bench-"))
  const facts: Record<string, unknown> = { ...machine(), mode: quick ? "quick" : "full", plan, connections }
  log(`mode ${facts.mode}; ${facts.cores} cores; node ${process.version}; data under ${work}`)
  const finish = () => {
    facts.duration_seconds = Math.round((Date.now() - started) / 1000)
    if (profileDir !== undefined) facts.profiles = profileDir
    print()
    const out = join(resultsDir, `${stamp}${quick ? "-quick" : ""}.json`)
    writeFileSync(
      out,
      JSON.stringify({ started_at: new Date(started).toISOString(), machine: facts, rows, warnings }, null, 2)
    )
    process.stdout.write(`\nwritten ${out.replace(`${root}/`, "")}\n`)
  }

  try {
    // Scenario 10 has a database and servers of its own and runs only when named; named alone, the main
    // server is not even set up.
    if (only?.includes("pg-distance") === true) {
      rows.push(
        ...(await scenarioPgDistance({
          root,
          work,
          quick,
          log,
          warn: (message) => void warnings.push(message),
          startServer: (name, env) => start(name, serverArgs(undefined), env)
        }))
      )
      if (only.every((name) => name === "pg-distance")) return finish()
    }
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
      version: query<{ v: string }>(mainDb, "SELECT sqlite_version() AS v").v,
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

    let getSaturation = Number.NaN
    if (wanted("get") || wanted("list") || wanted("feed")) {
      const rawGet = await start("raw-get", ["bench/dist/servers.js", "raw-get", "$PORT", fixtures])
      const emptyApi = await start("empty-api", ["bench/dist/servers.js", "empty-api", "$PORT", fixtures])
      const endpoints = [
        { name: "get", measure: "GET /products/:id", request: () => getRequest(companies) },
        { name: "list", measure: "GET /products?limit=20", request: () => listRequest(companies, "limit=20") },
        {
          name: "feed",
          measure: "GET /changes, up-to-date cursor (empty page)",
          request: () => feedRequest(companies, cursors)
        }
      ]
      for (const endpoint of endpoints.filter((e) => wanted(e.name))) {
        const c = await compare(endpoint.measure, [
          { name: "server", url: real.url, request: endpoint.request },
          { name: "empty HttpApi", url: emptyApi.url, request: endpoint.request },
          { name: "raw node:http", url: rawGet.url, request: endpoint.request }
        ])
        if (endpoint.name === "get") getSaturation = c.median("server")
        const vsEmpty = median(c.ratios("server", "empty HttpApi"))
        const target = { get: 0.4, list: 0.5, feed: 0.4 }[endpoint.name]!
        rows.push({
          scenario: "1 reads",
          measure: endpoint.measure,
          value: c.median("server"),
          unit: "req/s",
          baseline: "empty HttpApi, same schemas",
          baselineValue: c.median("empty HttpApi"),
          ratio: vsEmpty,
          target: `>= ${target.toFixed(2)}`,
          met: vsEmpty >= target,
          rounds: { server: c.rps("server"), baseline: c.rps("empty HttpApi") }
        })
        rows.push({
          scenario: "1 reads",
          measure: endpoint.measure,
          value: c.median("server"),
          unit: "req/s",
          baseline: "raw node:http, same body",
          baselineValue: c.median("raw node:http"),
          ratio: median(c.ratios("server", "raw node:http")),
          note: "raw is bounded by the load generator on 2 cores",
          rounds: { server: c.rps("server"), baseline: c.rps("raw node:http") }
        })
      }
      await rawGet.stop()
      await emptyApi.stop()
    }

    if (wanted("upsert")) {
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
    }

    if (wanted("imports")) rows.push(...(await scenarioImports({ url: real.url, companies, db: mainDb, work })))
    if (wanted("imports") || wanted("imports-pg"))
      rows.push(...(await scenarioImportsPg({ url: real.url, companies, db: mainDb, work })))

    const loaderContext = {
      root,
      work,
      quick,
      log,
      startServer: (name: string, env: Record<string, string>) => start(name, serverArgs(undefined), env)
    }
    if (wanted("loader")) rows.push(...(await scenarioLoader(loaderContext)))
    if (only?.includes("loader-memory") === true) rows.push(...(await scenarioLoaderMemory(loaderContext)))

    if (wanted("deep")) {
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
    }

    if (wanted("media")) rows.push(...(await scenarioMedia({ url: real.url, companies, db: mainDb, work })))

    if (wanted("tracing")) rows.push(...(await scenarioTracing({ url: real.url, companies, db: mainDb, work })))

    if (wanted("overload")) {
      // Twice the measured GET saturation, offered by 4x the connections, against a slice of the keys
      // small enough that the rate limits answer part of it with 429: on the same database, served by a
      // server with the documented limits.
      let saturation = getSaturation
      if (Number.isNaN(saturation))
        saturation = (await load(real.url, getRequest(companies), { seconds: plan.seconds, connections })).rps
      await real.stop()
      const heapDir = heapSnapshots ? join(resultsDir, `heap-${stamp}`) : undefined
      if (heapDir !== undefined) mkdirSync(heapDir, { recursive: true })
      const limited = await start(
        "server (documented limits)",
        [
          "--inspect=127.0.0.1:0",
          ...(heapDir === undefined ? [] : ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${heapDir}`]),
          ...serverArgs(undefined)
        ],
        { DATA_DIR: mainDir }
      )
      /** Has the server write its heap (after a full GC) and waits until the file is complete. */
      const snapshot = async () => {
        const before = snapshotsIn(heapDir!).length
        limited.process.kill("SIGUSR2")
        for (let size = -1; ;) {
          await sleep(500)
          const files = snapshotsIn(heapDir!)
          if (files.length === before) continue
          const now = statSync(files[files.length - 1]!).size
          if (now > 0 && now === size) return
          size = now
        }
      }
      // Two companies: 10 keys, 1,200 requests a minute, far below the offered load.
      const slice = companies.slice(0, 2)
      const statuses: Record<string, number> = {}
      let missingRetryAfter = 0
      let other5xx = 0
      // The RSS right after a burst is mostly garbage: requests in flight for a second or more outlive the
      // young generation's collections, so each burst promotes its garbage to the old generation, which V8
      // lets grow to ~190 MB before a full collection brings it back to ~50 MB. Compared at whatever point of
      // that cycle each burst ended, the bursts' highest RSS climbed or fell by tens of percent between runs
      // (+14 % and +44 % from bursts 1-3 to 4-6). What a leak would grow is what stays after a full
      // collection: it is forced after each burst (over the inspector) and compared, the first burst (JIT,
      // caches filling) left out, half against half by median.
      const bursts = overloadBursts
      const snapshotAfter = new Set([1, Math.ceil(bursts / 2), bursts])
      const memory = await inspectMemory(limited)
      const rss: Array<number> = []
      const settled: Array<{ readonly rss: number; readonly heapUsed: number }> = []
      const idle = await memory.afterGc()
      for (let burst = 0; burst < bursts; burst++) {
        const base = getRequest(slice)
        const result = await load(
          limited.url,
          {
            ...base,
            onResponse: (status, _body, _context, headers) => {
              if (
                (status === 429 || status === 503) &&
                headers["retry-after"] === undefined &&
                headers["Retry-After"] === undefined
              )
                missingRetryAfter++
              if (status >= 500 && status !== 503) other5xx++
            }
          },
          { seconds: plan.overloadSeconds, connections: connections * 4, overallRate: saturation * 2 }
        )
        for (const [code, count] of Object.entries(result.statuses)) statuses[code] = (statuses[code] ?? 0) + count
        let highest = rssMb(limited)
        for (let i = 0; i < 10; i++) {
          await sleep(100)
          highest = Math.max(highest, rssMb(limited))
        }
        rss.push(highest)
        const after = await memory.afterGc()
        settled.push(after)
        log(
          `overload burst ${burst + 1}: ${JSON.stringify(result.statuses)}, p99 ${result.p99} ms, rss ${highest} MB, after a full GC rss ${after.rss} MB, heap ${after.heapUsed} MB`
        )
        if (heapDir !== undefined && snapshotAfter.has(burst + 1)) await snapshot()
      }
      memory.close()
      const half = Math.max(2, Math.floor(bursts / 2))
      const growthOf = (field: "rss" | "heapUsed") => {
        const earlier = median(settled.slice(1, half).map((m) => m[field]))
        const later = median(settled.slice(half).map((m) => m[field]))
        return (later - earlier) / earlier
      }
      const growth = growthOf("rss")
      const heapGrowth = growthOf("heapUsed")
      let heapNote = ""
      if (heapDir !== undefined) {
        const heaps = snapshotsIn(heapDir).map(summarize)
        const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
        heapNote = `; live heap MB after bursts ${[...snapshotAfter].join(", ")}: ${heaps.map((h) => mb(h.total)).join(" -> ")} (snapshots in ${heapDir.replace(`${root}/`, "")}); grew most from the first to the last: ${grewMost(heaps[0]!, heaps[heaps.length - 1]!).join(", ")}`
        log(`overload heap${heapNote}`)
      }
      const ok = other5xx === 0 && missingRetryAfter === 0 && growth < 0.1 && heapGrowth < 0.1
      rows.push({
        scenario: "6 overload",
        measure: `GET at 2x saturation (${Math.round(saturation * 2)}/s offered, ${connections * 4} connections, ${bursts} bursts)`,
        value: growth * 100,
        unit: `% RSS growth after a full GC, bursts 2-${half} -> ${half + 1}-${bursts}`,
        target: "only 2xx/429/503, Retry-After on each, no RSS or heap growth",
        met: ok,
        note: `statuses ${JSON.stringify(statuses)}; 5xx other than 503: ${other5xx}; 429/503 without Retry-After: ${missingRetryAfter}; heap growth after a full GC ${(heapGrowth * 100).toFixed(1)} %; MB idle: RSS ${idle.rss}, heap ${idle.heapUsed}; after each burst's full GC: RSS ${settled.map((m) => m.rss).join(" -> ")}, heap ${settled.map((m) => m.heapUsed).join(" -> ")}; highest RSS in the second after each burst ${rss.join(" -> ")}${heapNote}`
      })
      await limited.stop()
    }

    await real.stop()
    finish()
  } finally {
    for (const child of children) await child.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

const print = () => {
  const table = [
    ["scenario", "measure", "value", "baseline", "baseline value", "ratio (median of rounds)", "target", "met"]
  ]
  for (const r of rows) {
    const digits = r.unit === "ms" ? 1 : 0
    table.push([
      r.scenario,
      r.measure,
      Number.isNaN(r.value) ? "pending" : `${fmt(r.value, digits)} ${r.unit}`,
      r.baseline ?? "",
      r.baselineValue === undefined ? "" : `${fmt(r.baselineValue, digits)} ${r.unit}`,
      r.ratio === undefined ? "" : `${fmt(r.ratio, 2)}x`,
      r.target ?? "",
      r.met === undefined ? "" : r.met ? "yes" : "NO"
    ])
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)))
  const line = (row: Array<string>) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`
  process.stdout.write(
    `${line(table[0]!)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|\n${table.slice(1).map(line).join("\n")}\n`
  )
  const notes = rows.filter((r) => r.note !== undefined)
  if (notes.length > 0)
    process.stdout.write(`\n${notes.map((r) => `- ${r.scenario} / ${r.measure}: ${r.note}`).join("\n")}\n`)
  if (warnings.length > 0) process.stdout.write(`\nwarnings:\n${warnings.map((w) => `- ${w}`).join("\n")}\n`)
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  for (const child of children) child.process.kill("SIGKILL")
  process.exit(1)
})
