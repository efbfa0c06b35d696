import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { Effect, Schedule } from "effect"
import { buildServer, freePort, runCli } from "./Instances.js"
import { at, type JsonObject, records, str } from "./Json.js"

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())
  )

/** `serve` on the data folder, not waited for; SIGKILLed (if still running) when the scope closes. */
const spawnServer = (bundle: string, env: Record<string, string>, port: number) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [join(bundle, "cli.js"), "serve"], {
        env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warning" },
        stdio: "ignore"
      })
    ),
    (started) => Effect.promise(() => (started.kill("SIGKILL"), exited(started)))
  )

/** `serve` on the data folder, ready; SIGKILLed (if still running) when the scope closes. */
const serve = (bundle: string, env: Record<string, string>) =>
  Effect.gen(function* () {
    const port = yield* freePort
    let output = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const started = spawn(process.execPath, [join(bundle, "cli.js"), "serve"], {
          env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warning" },
          stdio: ["ignore", "pipe", "pipe"]
        })
        started.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()))
        started.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()))
        return started
      }),
      (started) => Effect.promise(() => (started.kill("SIGKILL"), exited(started)))
    )
    const url = `http://127.0.0.1:${port}`
    for (let i = 0; ; i++) {
      const ready = yield* Effect.promise(() =>
        fetch(`${url}/ready`).then(
          (r) => r.status,
          () => 0
        )
      )
      if (ready === 200) break
      // A loaded machine (CI runs suites in parallel) may take tens of seconds to start the bundle.
      if (i > 1200 || child.exitCode !== null) throw new Error(`the server did not start:\n${output}`)
      yield* Effect.sleep("50 millis")
    }
    return { url, child }
  })

const api = (url: string, token: string, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined
          ? {}
          : { "content-type": "application/json", "idempotency-key": `crash-${Math.random().toString(36).slice(2)}` })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const answer: unknown = await response.json()
    return { status: response.status, body: answer }
  })

/** Every page of a list endpoint. */
const all = (url: string, token: string, path: string) =>
  Effect.gen(function* () {
    const out: Array<JsonObject> = []
    let cursor: string | null = null
    do {
      const page: { body: unknown } = yield* api(
        url,
        token,
        "GET",
        `${path}${path.includes("?") ? "&" : "?"}limit=100${cursor === null ? "" : `&cursor=${cursor}`}`
      )
      const items = records(page.body)
      out.push(...items)
      // A list's last page has no next_cursor; the feed always has one, and ends with an empty page.
      const next = at(page.body, "next_cursor")
      cursor = typeof next === "string" ? next : null
      if (path.startsWith("/changes") && items.length === 0) cursor = null
    } while (cursor !== null)
    return out
  })

const jobsCount = 20
const perJob = 50

describe("a server killed in the middle of an import", () => {
  it.live(
    "takes the job up again after restart and applies every record exactly once",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const bundle = yield* buildServer
          const dataDir = yield* Effect.acquireRelease(
            Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-crash-"))),
            (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
          )
          // The default 30 s lease: on SQLite the restarted server gives the killed worker's job back at once
          // (within the 20 s this test waits). The rate limit multiplied so that polling fast enough to catch
          // a job part-way is not refused.
          const env = { DATA_DIR: dataDir, JOB_POLL_MILLISECONDS: "20", BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000" }
          const company = yield* runCli(bundle, env, [
            "company",
            "create",
            "--name",
            "Crash",
            "--currency",
            "EUR",
            "--main-language",
            "en",
            "--languages",
            "de",
            "--storage-slug",
            "crash",
            "--tax-model",
            "inclusive",
            "--tax-rates",
            "20",
            "--scopes",
            "catalog:read,catalog:write"
          ])
          const connection = yield* runCli(bundle, env, [
            "connection",
            "create",
            "--company",
            str(company, "id"),
            "--name",
            "ERP"
          ])
          const key = yield* runCli(bundle, env, [
            "key",
            "create",
            "--connection",
            str(connection, "id"),
            "--scopes",
            "catalog:read,catalog:write",
            "--days",
            "30"
          ])
          const token = str(key, "token")

          // The jobs are queued by an instance without workers, so that none has finished before the kill.
          const queueing = yield* serve(bundle, { ...env, JOB_WORKERS: "0" })
          const ids: Array<string> = []
          for (let j = 0; j < jobsCount; j++) {
            // A job commits once per pass (a batch is a whole body), and a body whose references all resolve
            // within it applies in one pass. Here the first write of a parent category fails (an unknown key),
            // so the children naming it wait for its second write, and the products in those children with
            // them: a second pass, so that a job is part-way between two.
            const children = 13
            const parents = 12
            const products = perJob - 1 - children - parents
            const records = [
              { resource: "categories", body: { external_id: `pc-${j}-0`, name: "Parent", unknown: 1 } },
              ...Array.from({ length: perJob - 1 }, (_, i) =>
                i < products
                  ? {
                      resource: "products",
                      body: {
                        external_id: `p-${j}-${i}`,
                        name: `P ${i}`,
                        // Every child category of the job: heavier records keep a job running long enough to be caught.
                        category_ids: Array.from({ length: children }, (_, k) => ({ external_id: `c-${j}-${k}` })),
                        details: { description: "d".repeat(4000), width: "90" },
                        translations: { de: { name: `P ${i} de`, description: "d".repeat(4000) } }
                      }
                    }
                  : i < products + children
                    ? {
                        resource: "categories",
                        body: {
                          external_id: `c-${j}-${i - products}`,
                          name: `C ${i}`,
                          parent_id: { external_id: `pc-${j}-${i % parents}` }
                        }
                      }
                    : {
                        resource: "categories",
                        body: { external_id: `pc-${j}-${i - products - children}`, name: `Parent ${i}` }
                      }
              )
            ]
            const reply = yield* api(queueing.url, token, "POST", "/imports", { records })
            expect(reply.status).toBe(202)
            ids.push(str(reply.body, "job", "id"))
          }
          queueing.child.kill("SIGKILL")
          yield* Effect.promise(() => exited(queueing.child))
          // Workers start while the server is still starting up, so progress is watched in the database
          // itself (WAL lets a reader in beside the server), and the kill comes as soon as a job is part-way.
          const first = yield* spawnServer(bundle, env, yield* freePort)
          const db = yield* Effect.acquireRelease(
            Effect.sync(() => new Database(join(dataDir, "catalog-sync.db"), { readonly: true, fileMustExist: false })),
            (opened) => Effect.sync(() => opened.close())
          ).pipe(Effect.retry({ times: 100, schedule: Schedule.spaced("20 millis") }))
          const partWayQuery = db.prepare(
            `SELECT j.id FROM jobs j JOIN import_records r ON r.job_id = j.id WHERE j.state = 'running'
             GROUP BY j.id HAVING SUM(r.status = 'applied') > 0 AND SUM(r.status = 'pending') > 0`
          )
          let partWay: string | undefined
          const deadline = Date.now() + 20_000
          while (partWay === undefined && Date.now() < deadline && first.exitCode === null) {
            partWay = (partWayQuery.get() as { id: string } | undefined)?.id
          }
          first.kill("SIGKILL")
          yield* Effect.promise(() => exited(first))
          expect(partWay).toBeDefined()

          const second = yield* serve(bundle, env)
          let jobs: ReadonlyArray<JsonObject> = []
          for (let i = 0; i < 400; i++) {
            jobs = records((yield* api(second.url, token, "GET", "/jobs?limit=100")).body)
            if (jobs.every((j) => j.state === "completed" || j.state === "failed")) break
            yield* Effect.sleep("50 millis")
          }
          expect(jobs.map((j) => j.id)).toEqual(ids)
          expect(jobs.map((j) => j.state)).toEqual(ids.map(() => "completed"))
          expect(jobs.every((j) => at(j, "counts", "created") === perJob - 1 && at(j, "counts", "failed") === 1)).toBe(
            true
          )
          const retaken = jobs.find((j) => j.id === partWay)
          expect(at(retaken, "attempts")).toBe(2)
          for (const id of ids) {
            const report = records((yield* api(second.url, token, "GET", `/imports/${id}`)).body, "report", "records")
            expect(report[0]).toMatchObject({ status: "failed", error: { code: "validation_failed" } })
            expect(report.slice(1).every((r) => r.status === "applied" && r.outcome === "created" && r.run === 1)).toBe(
              true
            )
          }
          // Exactly once: one record per external_id at revision 1, and one "created" change for each.
          const products = yield* all(second.url, token, "/products")
          const categories = yield* all(second.url, token, "/categories")
          const created = jobsCount * (perJob - 1)
          expect(products.length + categories.length).toBe(created)
          expect(new Set([...products, ...categories].map((r) => r.external_id)).size).toBe(created)
          expect([...products, ...categories].every((r) => r.revision === 1)).toBe(true)
          const changes = yield* all(second.url, token, "/changes")
          expect(changes).toHaveLength(created)
          expect(new Set(changes.map((c) => c.id)).size).toBe(created)
          expect(changes.every((c) => c.operation === "created")).toBe(true)
        })
      ),
    90_000
  )
})
