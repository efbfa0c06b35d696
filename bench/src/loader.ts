/**
 * The bulk loader (`catalog-sync-load`) measured as users run it: a child process reading a JSONL file
 * into a local server whose rate limits are raised (BENCHMARK_RATE_LIMIT_MULTIPLIER), so that the
 * server's job worker, not the documented limits, sets the pace.
 *
 * - `loader`: 100,000 products (20,000 in quick mode). The loader's records/s against the server's own
 *   import rate on the same server: the same products sent by a minimal client in this process (POST
 *   /imports of 50, the next as soon as fewer than 20 jobs are pending, watched in the database, no
 *   polling requests), from its first POST to its last job's end. A ratio near 1 means the loader is
 *   not the bottleneck. Also the loader's CPU and RSS, and how long the job worker had nothing queued.
 * - `loader-memory`: an input of over 1 GiB (large products with ten translations), generated on the
 *   fly, loaded with the loader's JS heap capped at 128 MB; its RSS sampled through the load, against
 *   how far it got.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { createWriteStream, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import Database from "better-sqlite3"
import { arrayAt, type JsonObject, numberAt, objectAt, valueAt } from "./json.js"
import type { Row } from "./row.js"
import { createTenants } from "./setup.js"

export interface LoaderContext {
  readonly root: string
  readonly work: string
  readonly quick: boolean
  readonly log: (message: string) => void
  /** Starts a server process (as main.ts starts every server) and returns its URL and a stop function. */
  readonly startServer: (
    name: string,
    env: Record<string, string>
  ) => Promise<{ readonly url: string; readonly stop: () => Promise<void> }>
}

const bin = (root: string) => join(root, "packages/client/bin/catalog-sync-load.mjs")

/** The command is built on first use: before the clock starts. */
const build = (root: string) => void execFileSync(process.execPath, [bin(root), "--help"], { stdio: "ignore" })

/** Resident memory (MB) and CPU seconds (user + system) of a process, from /proc. */
const usage = (pid: number) => {
  try {
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return { rss, cpu: (Number(fields[11]) + Number(fields[12])) / 100 }
  } catch {
    return { rss: Number.NaN, cpu: Number.NaN }
  }
}

interface Sample {
  readonly at: number
  readonly rss: number
  readonly cpu: number
  readonly done: number
}

/** What the benchmark reads of the loader's --json summary (the client's LoadSummary, as printed). */
interface LoaderSummary {
  readonly failed: number
  readonly elapsedMs: number
  /** The products created; undefined when the load had no products. */
  readonly productsCreated: number | undefined
  /** The summary as printed, for error messages. */
  readonly printed: JsonObject
}

const loaderSummary = (printed: JsonObject): LoaderSummary => {
  const products = arrayAt(printed, "resources").find((r) => valueAt(r, "resource") === "products")
  return {
    failed: numberAt(printed, "failed"),
    elapsedMs: numberAt(printed, "elapsedMs"),
    productsCreated: products === undefined ? undefined : numberAt(products, "created"),
    printed
  }
}

/** Runs the loader to its end, sampling its RSS and CPU and following its --json progress. */
const runLoader = (
  root: string,
  cwd: string,
  args: ReadonlyArray<string>,
  keys: ReadonlyArray<string>,
  nodeFlags: ReadonlyArray<string> = []
) =>
  new Promise<{ summary: LoaderSummary; samples: Array<Sample>; ms: number }>((resolve, reject) => {
    const started = performance.now()
    const child: ChildProcess = spawn(process.execPath, [...nodeFlags, bin(root), "--json", ...args], {
      cwd,
      env: { ...process.env, CATALOG_SYNC_KEYS: keys.join(",") },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const samples: Array<Sample> = []
    let done = 0
    let summary: JsonObject | undefined
    let stderr = ""
    let buffered = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split("\n")
      buffered = lines.pop()!
      for (const line of lines) {
        let event: unknown
        try {
          event = JSON.parse(line)
        } catch {
          continue
        }
        if (valueAt(event, "event") === "progress")
          done = arrayAt(event, "resources").reduce<number>((sum, r) => sum + numberAt(r, "done"), 0)
        if (valueAt(event, "event") === "summary") summary = objectAt(event)
      }
    })
    child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    const timer = setInterval(() => samples.push({ at: performance.now() - started, ...usage(child.pid!), done }), 500)
    child.once("exit", (code) => {
      clearInterval(timer)
      const ms = performance.now() - started
      if (code !== 0 || summary === undefined) reject(new Error(`catalog-sync-load exited ${code}: ${stderr}`))
      else {
        try {
          resolve({ summary: loaderSummary(summary), samples, ms })
        } catch (error) {
          reject(error)
        }
      }
    })
  })

/**
 * The job worker's timeline of the company's import jobs (one job of a connection at a time): from the
 * first job's start to the last one's end, and how long of it the worker had no job queued because the
 * loader had not sent the next one yet (a job created after the previous one finished).
 */
const workerTimeline = (db: string, companyId: string) => {
  const conn = new Database(db, { readonly: true })
  try {
    const jobs = (
      conn
        .prepare(
          "SELECT created_at, started_at, finished_at FROM jobs WHERE company_id = ? AND kind = 'import' ORDER BY started_at"
        )
        .all(companyId) as Array<{
        created_at: string
        started_at: string
        finished_at: string
      }>
    ).map((j) => ({
      created: Date.parse(j.created_at),
      started: Date.parse(j.started_at),
      finished: Date.parse(j.finished_at)
    }))
    let waitedForLoader = 0
    for (let i = 1; i < jobs.length; i++)
      waitedForLoader += Math.max(0, Math.min(jobs[i]!.started, jobs[i]!.created) - jobs[i - 1]!.finished)
    return {
      span: (jobs.at(-1)!.finished - jobs[0]!.started) / 1000,
      waitedForLoader: waitedForLoader / 1000,
      jobs: jobs.length
    }
  } finally {
    conn.close()
  }
}

const writeLines = async (path: string, count: number, line: (i: number) => string) => {
  const out = createWriteStream(path)
  for (let i = 0; i < count; i++) {
    if (!out.write(`${line(i)}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
}

/** A server of its own (limits raised), companies with a connection and five keys each. */
const tenantServer = async (context: LoaderContext, name: string, languages?: ReadonlyArray<string>, companies = 1) => {
  const dir = join(context.work, name)
  const created = await createTenants(dir, companies, 5, undefined, undefined, languages)
  const server = await context.startServer(`server (${name})`, {
    DATA_DIR: dir,
    BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000"
  })
  return { company: created[0]!, companies: created, server, db: join(dir, "catalog-sync.db"), dir }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The server's own import rate: `bodies` sent by a minimal client, 50 a POST, the next POST as soon as
 * fewer than 20 of the company's jobs are pending (read in the database beside the server, so no
 * request is spent on polling). Milliseconds from the first POST to the last job's end.
 */
const rawImport = async (url: string, token: string, db: string, companyId: string, bodies: ReadonlyArray<unknown>) => {
  const conn = new Database(db, { readonly: true })
  const pending = conn.prepare("SELECT count(*) AS n FROM jobs WHERE company_id = ? AND state IN ('queued', 'running')")
  const count = () => (pending.get(companyId) as { n: number }).n
  const post = async (records: ReadonlyArray<unknown>) => {
    const response = await fetch(`${url}/api/v1/imports`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": `bench-raw-${randomUUID()}`
      },
      body: JSON.stringify({ records })
    })
    if (response.status !== 202) throw new Error(`raw import: ${response.status} ${await response.text()}`)
  }
  try {
    const started = performance.now()
    for (let i = 0; i < bodies.length; i += 50) {
      while (count() >= 20) await sleep(10)
      await post(bodies.slice(i, i + 50).map((body) => ({ resource: "products", body })))
    }
    while (count() > 0) await sleep(10)
    return performance.now() - started
  } finally {
    conn.close()
  }
}

const product = (i: number) => ({
  external_id: `p-${i}`,
  name: `Product ${i}`,
  sku: `SKU-${i}`,
  category_ids: [{ external_id: `c-${i % 20}` }],
  details: { description: `A sofa, number ${i}.`, width: "210", height: "85" },
  translations: { de: { name: `Produkt ${i}` } }
})

export const scenarioLoader = async (context: LoaderContext): Promise<Array<Row>> => {
  const count = context.quick ? 20_000 : 100_000
  const { companies, server, db, dir } = await tenantServer(context, "loader", undefined, 2)
  const [company, rawCompany] = companies as [(typeof companies)[number], (typeof companies)[number]]
  try {
    const categories = Array.from({ length: 20 }, (_, i) => ({ external_id: `c-${i}`, name: `Category ${i}` }))
    await writeLines(join(dir, "categories.jsonl"), categories.length, (i) => JSON.stringify(categories[i]))
    await writeLines(join(dir, "products.jsonl"), count, (i) => JSON.stringify(product(i)))
    build(context.root)
    context.log(
      `loader: ${count} products, input ${(statSync(join(dir, "products.jsonl")).size / 2 ** 20).toFixed(1)} MiB`
    )

    // The baseline first, on the other company: its categories, then the products.
    const rawSetup = await fetch(`${server.url}/api/v1/imports`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${rawCompany.tokens[0]}`,
        "content-type": "application/json",
        "idempotency-key": `bench-raw-${randomUUID()}`
      },
      body: JSON.stringify({ records: categories.map((body) => ({ resource: "categories", body })) })
    })
    if (rawSetup.status !== 202) throw new Error(`raw import categories: ${rawSetup.status}`)
    const rawMs = await rawImport(
      server.url,
      rawCompany.tokens[0]!,
      db,
      rawCompany.id,
      Array.from({ length: count }, (_, i) => product(i))
    )
    const rawRate = count / (rawMs / 1000)
    context.log(`loader: the minimal client imported ${count} products at ${rawRate.toFixed(0)} records/s`)

    const { summary, samples } = await runLoader(
      context.root,
      dir,
      ["--url", server.url, "--max-pending", "20", "categories.jsonl", "products.jsonl"],
      company.tokens
    )
    if (summary.failed !== 0 || summary.productsCreated !== count)
      throw new Error(`loader: ${JSON.stringify(summary.printed)}`)
    const loaderRate = (count + categories.length) / (summary.elapsedMs / 1000)
    const worker = workerTimeline(db, company.id)
    const last = samples.at(-1)!
    const cpuShare = last.cpu / (last.at / 1000)
    const peak = Math.max(...samples.map((s) => s.rss))
    context.log(
      `loader: ${loaderRate.toFixed(0)} records/s in ${(summary.elapsedMs / 1000).toFixed(1)} s; the worker had no job queued ${worker.waitedForLoader.toFixed(1)} s of ${worker.span.toFixed(1)} s; ` +
        `loader CPU ${(cpuShare * 100).toFixed(0)} %, peak RSS ${peak.toFixed(0)} MB`
    )
    return [
      {
        scenario: "7 loader",
        measure: `${count.toLocaleString("en")} products from JSONL through catalog-sync-load (SQLite)`,
        value: loaderRate,
        unit: "records/s",
        baseline: "the server's own import rate: a minimal client, 20 jobs pending, no polling requests",
        baselineValue: rawRate,
        ratio: loaderRate / rawRate,
        target: ">= 0.90 (the loader is not the bottleneck)",
        met: loaderRate / rawRate >= 0.9,
        note:
          `1 connection, 5 keys, --max-pending 20, limits x1000, ${worker.jobs} jobs; loader elapsed ${(summary.elapsedMs / 1000).toFixed(1)} s (scan and start included), ` +
          `CPU ${(cpuShare * 100).toFixed(0)} % of one core, peak RSS ${peak.toFixed(0)} MB; the worker had no job queued ${worker.waitedForLoader.toFixed(1)} s of ${worker.span.toFixed(1)} s`
      }
    ]
  } finally {
    await server.stop()
  }
}

const heapCapMb = 128

export const scenarioLoaderMemory = async (context: LoaderContext): Promise<Array<Row>> => {
  const languages = ["de", "fr", "it", "es", "nl", "pl", "cs", "sv", "da", "fi"]
  const { company, server, dir } = await tenantServer(context, "loader-memory", languages)
  try {
    // ~45 KB a product: a 4,000-character description and ten translations of as much.
    const text = (seed: number) =>
      Array.from({ length: 500 }, (_, k) => `w${(seed * 31 + k) % 997}`)
        .join(" ")
        .padEnd(4000, ".")
        .slice(0, 4000)
    const perRecord = JSON.stringify({
      external_id: "p-0",
      name: "x",
      category_ids: [{ external_id: "c" }],
      details: { description: text(0) },
      translations: Object.fromEntries(languages.map((l) => [l, { name: "x", description: text(0) }]))
    }).length
    const count = Math.ceil((1.05 * 2 ** 30) / perRecord)
    await writeLines(join(dir, "categories.jsonl"), 1, () => JSON.stringify({ external_id: "c", name: "Category" }))
    await writeLines(join(dir, "products.jsonl"), count, (i) =>
      JSON.stringify({
        external_id: `p-${i}`,
        name: `Product ${i}`,
        category_ids: [{ external_id: "c" }],
        details: { description: text(i) },
        translations: Object.fromEntries(
          languages.map((l) => [l, { name: `Product ${i} ${l}`, description: text(i + 1) }])
        )
      })
    )
    const bytes = statSync(join(dir, "products.jsonl")).size
    context.log(`loader-memory: ${count} products, ${(bytes / 2 ** 30).toFixed(2)} GiB`)
    build(context.root)
    // The JS heap capped far below the input: the load fails if the loader keeps what it reads.
    const { summary, samples } = await runLoader(
      context.root,
      dir,
      ["--url", server.url, "categories.jsonl", "products.jsonl"],
      company.tokens,
      [`--max-old-space-size=${heapCapMb}`]
    )
    if (summary.failed !== 0) throw new Error(`loader-memory: ${JSON.stringify(summary.printed)}`)
    const at = (share: number) => {
      const sample = samples.find((s) => s.done >= share * count) ?? samples.at(-1)!
      return sample.rss
    }
    const points = [0.1, 0.25, 0.5, 0.75, 1].map((share) => [share, at(share)] as const)
    const peak = Math.max(...samples.map((s) => s.rss))
    const growth = (at(1) - at(0.25)) / at(0.25)
    context.log(
      `loader-memory: RSS ${points.map(([s, r]) => `${s * 100}% ${r.toFixed(0)} MB`).join(", ")}; peak ${peak.toFixed(0)} MB`
    )
    return [
      {
        scenario: "8 loader memory",
        measure: `RSS of catalog-sync-load over a ${(bytes / 2 ** 30).toFixed(2)} GiB JSONL (${count.toLocaleString("en")} products)`,
        value: growth * 100,
        unit: "% RSS growth 25%->100% of the load",
        target: "flat: < 10 % growth, peak far below the input size",
        met: growth < 0.1,
        note: `JS heap capped at ${heapCapMb} MB (--max-old-space-size), --max-pending 10; RSS ${points.map(([s, r]) => `${s * 100}%: ${r.toFixed(0)} MB`).join(", ")}; peak ${peak.toFixed(0)} MB; ${((count + 1) / (summary.elapsedMs / 1000)).toFixed(0)} records/s`,
        rounds: samples.map((s) => [Math.round(s.at), Math.round(s.rss), s.done])
      }
    ]
  } finally {
    await server.stop()
  }
}
