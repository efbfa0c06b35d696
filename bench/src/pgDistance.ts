/**
 * Scenario 10, `--only=pg-distance` (run only when named): PostgreSQL at a distance. A throwaway cluster
 * with fsync on (or the server at `DATABASE_URL`), reached by the servers through a TCP proxy that adds a
 * round trip of 0, 1 and 5 ms (half each way, on every chunk: `servers.js latency-proxy`, the tests'
 * LatencyProxy.ts, in a process of its own). Two server processes run on the database; "one instance" is
 * the first alone (the second paused with SIGSTOP, so its job worker takes nothing either), "two
 * instances" both, autocannon's connections (and the import's requests) spread over them in turn. The
 * rounds alternate which goes first.
 *
 * Cases: GET /products/:id and a feed poll with an up-to-date cursor over 20 companies; creates through
 * POST /products/upsert in one company from 20 keys of 4 connections, and over the 20 companies; imports
 * of one company (its 4 connections submitting jobs of 50 products in turn, records/s from the first POST
 * to the last job's end, latency a job's from its POST to its end). The servers run with
 * BENCHMARK_RATE_LIMIT_MULTIPLIER=1000, so that the ceilings are the database's, not the documented
 * limits' (one company may send 600 requests a minute); the limits are still counted in the database.
 *
 * On Linux each case also reports where the machine's CPU went (cpuSplit.ts: the servers, PostgreSQL, the
 * proxy and this process, in cores and in CPU ms per request), and the two-instance row the most a second
 * instance could add here: the machine's cores over those one instance kept busy.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { type LoadRequest, type LoadResult, load, median } from "./load.js"
import { stringAt } from "./json.js"
import { api, createRequest, feedRequest, getRequest, runId, seedThroughApi } from "./requests.js"
import type { Row } from "./row.js"
import { cpuSplit, describeSplit, type Split } from "./cpuSplit.js"
import { type Company, createTenants } from "./setup.js"

export interface DistanceContext {
  readonly root: string
  readonly work: string
  readonly quick: boolean
  readonly log: (message: string) => void
  /** A line for the run's warnings: an answer that means the run did not measure what it claims. */
  readonly warn: (message: string) => void
  /** Starts a server process as main.ts starts every server (ready once GET /health answers). */
  readonly startServer: (
    name: string,
    env: Record<string, string>
  ) => Promise<{ readonly url: string; readonly process: ChildProcess; readonly stop: () => Promise<void> }>
}

const roundTrips = [0, 1, 5]
const spreadCompanies = 20
const oneCompany = { connections: 4, keysPerConnection: 5 }
const recordsPerJob = 50
const connections = 32

/** The bars of issue "PostgreSQL at a distance", by case and round trip (ms). */
const bars: Record<string, Record<number, number>> = {
  "upsert-one": { 1: 150, 5: 40 },
  "import-one": { 1: 1000, 5: 300 }
}
/** Two instances against one, with 20 companies, at a 1 ms round trip. */
const spreadBar = 1.3

interface Measured {
  readonly rate: number
  readonly p50: number
  readonly p99: number
  /** Where the machine's CPU went while the case ran (Linux). */
  readonly split?: Split
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** The median time of `statement` on a connection of its own, after a few to warm it. */
const medianMillis = async (url: string, statement: string, times: number) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (let i = 0; i < 10; i++) await client.query(statement)
    const took: Array<number> = []
    for (let i = 0; i < times; i++) {
      const started = performance.now()
      await client.query(statement)
      took.push(performance.now() - started)
    }
    return median(took)
  } finally {
    await client.end()
  }
}

/** `servers.js latency-proxy` in a process of its own, so that the load generator does not delay its relays. */
const startProxy = (root: string, target: string, roundTrip: number) =>
  new Promise<{ readonly url: string; readonly pid: number; readonly stop: () => void }>((resolve, reject) => {
    const child = spawn(process.execPath, ["bench/dist/servers.js", "latency-proxy", String(roundTrip / 2), target], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"]
    })
    let output = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("\n"))
        resolve({ url: JSON.parse(output).url, pid: child.pid!, stop: () => child.kill("SIGKILL") })
    })
    child.once("exit", (code) => reject(new Error(`latency proxy exited with ${code}`)))
  })

export const scenarioPgDistance = async (context: DistanceContext): Promise<Array<Row>> => {
  const unavailable = PgTesting.unavailableReason()
  if (unavailable !== undefined)
    return [
      {
        scenario: "10 pg distance",
        measure: "PostgreSQL at a distance",
        value: Number.NaN,
        unit: "",
        note: unavailable
      }
    ]
  const plan = context.quick
    ? { rounds: 1, seconds: 3, warmSeconds: 2, jobsPerConnection: 5 }
    : { rounds: 3, seconds: 5, warmSeconds: 2, jobsPerConnection: 10 }
  const loadAverage = loadavg().map((n) => n.toFixed(1))
  context.log(`pg-distance: load average ${loadAverage.join(" ")}`)
  const scope = Effect.runSync(Scope.make())
  let opened: pg.Client | undefined
  try {
    const url = await Effect.runPromise(
      Scope.provide(Effect.flatMap(PgTesting.durableCluster, PgTesting.database), scope)
    )
    const dir = join(context.work, "pg-distance")
    mkdirSync(dir)
    const [one, ...spread] = [
      ...(await createTenants(dir, 1, oneCompany.keysPerConnection, undefined, url, undefined, oneCompany.connections)),
      ...(await createTenants(dir, spreadCompanies, 5, undefined, url))
    ] as [Company, ...Array<Company>]
    const db = new pg.Client({ connectionString: url })
    opened = db
    await db.connect()
    const settings: Record<string, string> = {}
    for (const name of ["fsync", "synchronous_commit", "full_page_writes", "server_version"])
      settings[name] = (await db.query(`SHOW ${name}`)).rows[0][name]
    await db.query("CREATE TABLE bench_commits (n integer)")
    const commit = await medianMillis(url, "INSERT INTO bench_commits VALUES (1)", 200)
    const select = await medianMillis(url, "SELECT 1", 200)
    await db.query("DROP TABLE bench_commits")
    const facts = `PostgreSQL ${settings.server_version}, fsync ${settings.fsync}, synchronous_commit ${settings.synchronous_commit}, full_page_writes ${settings.full_page_writes}; a one-row insert and its commit ${commit.toFixed(2)} ms against ${select.toFixed(2)} ms for SELECT 1 (medians, loopback); load average before ${loadAverage.join(" ")}`
    context.log(`pg-distance: ${facts}`)

    /** Each company's up-to-date feed cursor, from its head row (`c2_` and its last position in base 36). */
    const cursorsOf = async (companies: ReadonlyArray<Company>) => {
      const heads = new Map(
        (
          await db.query("SELECT company_id, last_position FROM change_heads WHERE company_id = ANY($1)", [
            companies.map((c) => c.id)
          ])
        ).rows.map((r) => [r.company_id as string, Number(r.last_position)])
      )
      return companies.map((c) => `c2_${(heads.get(c.id) ?? 0).toString(36)}`)
    }

    const fromLoad = (label: string, result: LoadResult): Measured => {
      const bad = Object.entries(result.statuses).filter(([code]) => !code.startsWith("2"))
      if (bad.length > 0 || result.errors > 0)
        context.warn(`${label}: non-2xx ${JSON.stringify(Object.fromEntries(bad))}, errors ${result.errors}`)
      return { rate: result.rps, p50: result.p50, p99: result.p99 }
    }
    const loadOf = (label: string, urls: ReadonlyArray<string>, request: LoadRequest, seconds = plan.seconds) =>
      load(urls, request, { seconds, connections }).then((result) => fromLoad(label, result))

    /** One company's connections each submit `jobs` imports of 50 in turn; records/s to the last job's end. */
    const importRound = async (urls: ReadonlyArray<string>, prefix: string, jobs: number): Promise<Measured> => {
      const ids: Array<string> = []
      const started = performance.now()
      await Promise.all(
        one.connections.map(async (connection, c) => {
          for (let j = 0; j < jobs; j++) {
            const records = Array.from({ length: recordsPerJob }, (_, i) => ({
              resource: "products",
              body: { external_id: `${prefix}-${c}-${j}-${i}`, name: "Sofa", category_ids: [{ external_id: "sofas" }] }
            }))
            const token = connection.tokens[j % connection.tokens.length]!
            ids.push(
              stringAt(await api(urls[(c + j) % urls.length]!, "POST", "/imports", token, { records }), "job", "id")
            )
          }
        })
      )
      const unfinished = "SELECT count(*) AS n FROM jobs WHERE id = ANY($1) AND state IN ('queued', 'running')"
      while (Number((await db.query(unfinished, [ids])).rows[0].n) > 0) await sleep(10)
      const ms = performance.now() - started
      const applied = Number(
        (
          await db.query("SELECT count(*) AS n FROM import_records WHERE job_id = ANY($1) AND status = 'applied'", [
            ids
          ])
        ).rows[0].n
      )
      if (applied !== ids.length * recordsPerJob)
        context.warn(`pg-distance import ${prefix}: ${applied} of ${ids.length * recordsPerJob} records applied`)
      const turnaround = (
        await db.query("SELECT created_at, finished_at FROM jobs WHERE id = ANY($1)", [ids])
      ).rows.map((r) => Date.parse(r.finished_at) - Date.parse(r.created_at))
      return { rate: (applied / ms) * 1000, p50: percentile(turnaround, 50), p99: percentile(turnaround, 99) }
    }

    const cases: ReadonlyArray<{
      readonly name: string
      readonly measure: string
      readonly unit: string
      readonly run: (urls: ReadonlyArray<string>, label: string) => Promise<Measured>
    }> = [
      {
        name: "get",
        measure: "GET /products/:id, 20 companies",
        unit: "req/s",
        run: (urls, label) => loadOf(label, urls, getRequest(spread))
      },
      {
        name: "feed",
        measure: "GET /changes, up-to-date cursor, 20 companies",
        unit: "req/s",
        run: async (urls, label) => loadOf(label, urls, feedRequest(spread, await cursorsOf(spread)))
      },
      {
        name: "upsert-one",
        measure: "POST /products/upsert (create), one company, 20 keys of 4 connections",
        unit: "req/s",
        run: (urls, label) => loadOf(label, urls, createRequest([one]))
      },
      {
        name: "upsert-spread",
        measure: "POST /products/upsert (create), 20 companies",
        unit: "req/s",
        run: (urls, label) => loadOf(label, urls, createRequest(spread))
      },
      {
        name: "import-one",
        measure: `POST /imports + jobs, one company, 4 connections x ${plan.jobsPerConnection} jobs of 50`,
        unit: "records/s",
        run: (urls, label) => importRound(urls, `${label.replace(/\W+/g, "-")}-${runId}`, plan.jobsPerConnection)
      }
    ]

    const results = new Map<string, Array<Measured>>()
    const key = (name: string, roundTrip: number, instances: number) => `${name}/${roundTrip}/${instances}`
    /** Both servers on the database through the proxy at `proxied`, every case, alone and together. */
    const measureAt = async (roundTrip: number, proxied: string, proxyPid: number) => {
      const env = { DATABASE_URL: proxied, BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000" }
      const servers = await Promise.all(
        [1, 2].map((n) => {
          const data = join(dir, `server-${roundTrip}-${n}`)
          mkdirSync(data)
          return context.startServer(`server ${n} (PostgreSQL at ${roundTrip} ms)`, { ...env, DATA_DIR: data })
        })
      )
      const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]]
      try {
        if (roundTrip === roundTrips[0]) {
          await seedThroughApi(first.url, [one, ...spread])
          // External ids are the connection's own: each of the company's other connections names its `sofas`.
          for (const connection of one.connections.slice(1))
            await api(first.url, "POST", "/categories/upsert", connection.tokens[0]!, {
              external_id: "sofas",
              name: "Sofas"
            })
        }
        const both = [first.url, second.url]
        // Warm-up: both servers' paths for reads, writes and imports.
        await loadOf(`warm-up ${roundTrip} ms`, both, getRequest(spread), plan.warmSeconds)
        await loadOf(`warm-up ${roundTrip} ms`, both, createRequest(spread), plan.warmSeconds)
        await importRound(both, `warm-${roundTrip}-${runId}`, 1)
        for (let round = 0; round < plan.rounds; round++) {
          for (const instances of round % 2 === 0 ? [1, 2] : [2, 1]) {
            if (instances === 1) second.process.kill("SIGSTOP")
            try {
              const urls = instances === 1 ? [first.url] : both
              for (const c of cases) {
                const label = `pg-distance ${c.name} ${roundTrip} ms ${instances} instance(s) round ${round + 1}`
                const window = cpuSplit?.({
                  server: instances === 1 ? [first.process.pid!] : [first.process.pid!, second.process.pid!],
                  proxy: [proxyPid],
                  load: [process.pid]
                })
                const run = await c.run(urls, label)
                const split = window?.end()
                const measured = split === undefined ? run : { ...run, split }
                const earlier = results.get(key(c.name, roundTrip, instances)) ?? []
                results.set(key(c.name, roundTrip, instances), [...earlier, measured])
                context.log(
                  `${label}: ${Math.round(measured.rate)} ${c.unit}, p50 ${measured.p50} ms, p99 ${measured.p99} ms${
                    split === undefined
                      ? ""
                      : `; ${describeSplit(split, measured.rate * split.seconds, c.unit.split("/")[0]!)}`
                  }`
                )
              }
            } finally {
              if (instances === 1) second.process.kill("SIGCONT")
            }
          }
        }
      } finally {
        await Promise.all(servers.map((server) => server.stop()))
      }
    }
    const calibrated = new Map<number, number>()
    for (const roundTrip of roundTrips) {
      const proxy = await startProxy(context.root, url, roundTrip)
      try {
        // What the proxy adds, measured: its relays on this machine, and any lateness of its wake-ups.
        const added = (await medianMillis(proxy.url, "SELECT 1", 200)) - select
        calibrated.set(roundTrip, added)
        context.log(`pg-distance ${roundTrip} ms: the proxy adds ${added.toFixed(2)} ms per round trip (median)`)
        await measureAt(roundTrip, proxy.url, proxy.pid)
      } finally {
        proxy.stop()
      }
    }

    const rows: Array<Row> = []
    const fmt = (n: number) => (Number.isNaN(n) ? "-" : n >= 100 ? n.toFixed(0) : n.toFixed(1))
    const summary: Array<string> = []
    for (const c of cases) {
      for (const roundTrip of roundTrips) {
        const single = results.get(key(c.name, roundTrip, 1)) ?? []
        const double = results.get(key(c.name, roundTrip, 2)) ?? []
        const ratio = median(double.map((d, i) => d.rate / single[i]!.rate))
        const latency = (m: ReadonlyArray<Measured>) =>
          `p50 ${fmt(median(m.map((x) => x.p50)))} ms, p99 ${fmt(median(m.map((x) => x.p99)))} ms`
        // The first round's split (cores by process, CPU per request) beside its latencies.
        const cpu = (m: ReadonlyArray<Measured>) =>
          m[0]?.split === undefined
            ? ""
            : `; ${describeSplit(m[0].split, m[0].rate * m[0].split.seconds, c.unit.split("/")[0]!)}`
        // What a second instance can add on this machine at most: the cores one instance left unused (median of
        // rounds), at the same CPU per request (two processes on shared cores cost more per request, not less).
        const busyRounds = single.flatMap((m) =>
          m.split === undefined ? [] : [Object.values(m.split.cores).reduce((a, b) => a + b, 0)]
        )
        const busy = busyRounds.length === 0 ? undefined : median(busyRounds)
        const ceiling =
          busy === undefined
            ? ""
            : `; 1 instance kept ${busy.toFixed(2)} of ${availableParallelism()} cores busy: 2 can give at most ${(availableParallelism() / busy).toFixed(2)}x at its CPU per request`
        const bar = bars[c.name]?.[roundTrip]
        const common = {
          scenario: "10 pg distance",
          unit: c.unit,
          ...(bar === undefined ? {} : { target: `>= ${bar}` })
        }
        const at = `${roundTrip} ms round trip (measured +${calibrated.get(roundTrip)!.toFixed(2)} ms)`
        rows.push({
          ...common,
          measure: `${c.measure}, ${at}, 1 instance`,
          value: median(single.map((m) => m.rate)),
          ...(bar === undefined ? {} : { met: median(single.map((m) => m.rate)) >= bar }),
          note: `${latency(single)}${cpu(single)}`,
          rounds: single
        })
        const spreadTarget = c.name === "upsert-spread" && roundTrip === 1
        rows.push({
          ...common,
          measure: `${c.measure}, ${at}, 2 instances`,
          value: median(double.map((m) => m.rate)),
          baseline: "1 instance, same run",
          baselineValue: median(single.map((m) => m.rate)),
          ratio,
          ...(spreadTarget ? { target: `>= ${spreadBar.toFixed(1)}x 1 instance`, met: ratio >= spreadBar } : {}),
          ...(bar === undefined || spreadTarget ? {} : { met: median(double.map((m) => m.rate)) >= bar }),
          note: `${latency(double)}${cpu(double)}${ceiling}`,
          rounds: double
        })
        summary.push(
          `${c.name.padEnd(13)} ${String(roundTrip).padStart(2)} ms | 1: ${fmt(median(single.map((m) => m.rate))).padStart(6)} ${c.unit} (${latency(single)}) | 2: ${fmt(median(double.map((m) => m.rate))).padStart(6)} (${latency(double)}) | x${ratio.toFixed(2)}${busy === undefined ? "" : ` (at most x${(availableParallelism() / busy).toFixed(2)} here)`}`
        )
      }
    }
    context.log(`pg-distance summary (${facts}):\n${summary.join("\n")}`)
    rows[0] = { ...rows[0]!, note: `${rows[0]!.note}; ${facts}` }
    return rows
  } finally {
    await opened?.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
