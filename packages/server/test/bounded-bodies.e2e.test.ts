/**
 * The worst bodies a key can send within the 1 MB JSON limit: lists of bad items at every list field,
 * thousands of bad references within the limits, tens of thousands of unknown keys at the top and
 * nested, long and repeated invalid strings, imports of 50 such records. Each answer is small and costs
 * the server a few milliseconds; /health keeps answering while they arrive together. (Before the decode
 * was bounded, a catalog:read key's 95,000 `{"x":1}` in category_ids took ~15 s of CPU for a 19 MB 422.)
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { asArray, at, records } from "./Json.js"
import { call, freshKey, TestServer, TestServerLive, waitJob } from "./TestServer.js"

/** The JSON body limit (spec 8). */
const maxJsonBytes = 1_000_000

const many = <A>(n: number, f: (i: number) => A): Array<A> => Array.from({ length: n }, (_, i) => f(i))

/** As many copies of `item` as fill ~950 KB. */
const fill = (item: unknown) => many(Math.floor(950_000 / (JSON.stringify(item).length + 1)), () => item)

const u = "123e4567-e89b-12d3-a456-426614174000"
const bad = { x: 1 }
/** `n` unknown keys, the same names wherever they appear (below the limit of different keys a body may name). */
const unknownKeys = (n: number) => Object.fromEntries(many(n, (i) => [`k${i}`, 1]))

interface Case {
  readonly name: string
  readonly method: "POST" | "DELETE"
  readonly path: string
  readonly body: unknown
  readonly status: number
  readonly code?: string
  /**
   * The most CPU it may cost (60 ms unless told): parsing 950 KB of small objects alone takes ~25 ms, and
   * the five tries of a case can all land on a collector's busy stretch (34-50 ms measured for one body).
   */
  readonly cpuMillis?: number
}

const upsert = (name: string, body: unknown, status = 422, code = "validation_failed"): Case => ({
  name,
  method: "POST",
  path: "/products/upsert",
  body,
  status,
  code
})

/** A record of an import: a product body with bad items in each of its lists (~19 KB). */
const badRecord = {
  resource: "products",
  body: {
    external_id: "p",
    category_ids: many(50, () => bad),
    media_ids: many(50, () => "nope"),
    components: many(100, () => ({ product_id: bad, quantity: 0 })),
    fields: many(100, () => ({ name: 7, type_id: bad, group_ids: many(10, () => bad) }))
  }
}

const cases: ReadonlyArray<Case> = [
  upsert("category_ids of bad objects", { external_id: "p", category_ids: fill(bad) }),
  upsert("media_ids of bad objects", { external_id: "p", media_ids: fill(bad) }),
  upsert("components of bad objects", { external_id: "p", components: fill(bad) }),
  upsert("fields of bad objects", { external_id: "p", fields: fill(bad) }),
  upsert("group_ids of bad objects", {
    external_id: "p",
    fields: [{ name: "n", type_id: u, group_ids: fill(bad) }]
  }),
  upsert("10,000 bad references within every limit", {
    external_id: "p",
    fields: many(100, () => ({ name: "n", type_id: "nope", group_ids: many(100, () => "nope") }))
  }),
  upsert("category_ids of invalid strings", { external_id: "p", category_ids: fill("not-a-uuid") }),
  upsert("a 950 KB external_id and name", { external_id: "x".repeat(475_000), name: "y".repeat(475_000) }),
  upsert("75,000 unknown keys at the top", { external_id: "p", ...unknownKeys(75_000) }, 400, "json_too_many_keys"),
  upsert("75,000 unknown keys nested", { external_id: "p", details: unknownKeys(75_000) }, 400, "json_too_many_keys"),
  upsert("90,000 unknown keys in 100 fields", { external_id: "p", fields: many(100, () => unknownKeys(900)) }),
  upsert("45,000 unknown keys in 50 references", {
    external_id: "p",
    ...unknownKeys(900),
    category_ids: many(50, () => unknownKeys(900))
  }),
  {
    name: "an archive with 90,000 unknown keys",
    method: "DELETE",
    path: `/products/${u}`,
    body: { expected_revision: 1, nested: many(100, () => unknownKeys(900)) },
    status: 422,
    code: "validation_failed"
  },
  {
    name: "an import of bad records",
    method: "POST",
    path: "/imports",
    body: { records: fill(bad) },
    status: 422,
    code: "validation_failed"
  },
  {
    name: "a dry run of 50 records with bad items in every list",
    method: "POST",
    path: "/imports",
    body: { dry_run: true, records: many(50, () => badRecord) },
    status: 200,
    // Each record is decoded in the request; most of the time is parsing and fingerprinting 840 KB and the
    // report of 50 failed records, as for any dry run of that size.
    cpuMillis: 250
  },
  {
    // Applied in body order, one record would resolve per pass (1,275 attempts; ~700 ms of CPU).
    name: "a dry run of 50 categories each naming the next as its parent, with 4,000-character descriptions",
    method: "POST",
    path: "/imports",
    body: {
      dry_run: true,
      records: many(50, (i) => ({
        resource: "categories",
        body: {
          external_id: `c${i}`,
          name: `c${i}`,
          description: "d".repeat(4000),
          parent_id: i < 49 ? { external_id: `c${i + 1}` } : null
        }
      }))
    },
    status: 200,
    cpuMillis: 250
  }
]

const send = (url: string, token: string, request: Case) =>
  Effect.promise(async () => {
    const body = JSON.stringify(request.body)
    const cpu = process.cpuUsage()
    const started = performance.now()
    const response = await fetch(`${url}/api/v1${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": freshKey() },
      body
    })
    const text = await response.text()
    const used = process.cpuUsage(cpu)
    return {
      sent: Buffer.byteLength(body),
      status: response.status,
      text,
      answer: JSON.parse(text),
      millis: performance.now() - started,
      // The client's side runs in this process too (sending the body): the server's share is less.
      cpuMillis: (used.user + used.system) / 1000
    }
  })

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write", "costs:read", "costs:write"]

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })(
  "the worst bodies within the JSON limit",
  (it) => {
    describe("each costs milliseconds and answers in a few KB", () => {
      it.effect(
        "with a key that may write: 422 listing the first 20 problems (or 400 before parsing), in < 60 ms of CPU each",
        () =>
          Effect.gen(function* () {
            const { url, tenant } = yield* TestServer
            const token = yield* (yield* tenant()).key(writer)
            // Once each first: the first of a kind pays for compiling the code it runs.
            for (const request of cases) yield* send(url, token, request)
            for (const request of cases) {
              // The least of five: a loaded machine adds to a measure, never takes away.
              const replies = yield* Effect.all(many(5, () => send(url, token, request)))
              const reply = replies[0]!
              const cpuMillis = Math.min(...replies.map((r) => r.cpuMillis))
              console.log(
                `${request.name}: ${reply.sent} bytes -> ${reply.status} of ${reply.text.length} bytes, ${cpuMillis.toFixed(1)} ms of CPU, ${Math.min(...replies.map((r) => r.millis)).toFixed(1)} ms`
              )
              expect(reply.sent, request.name).toBeLessThanOrEqual(maxJsonBytes)
              expect(reply.status, request.name).toBe(request.status)
              if (request.code !== undefined) expect(reply.answer.error.code, request.name).toBe(request.code)
              if (request.status === 422) {
                const details = reply.answer.error.details as ReadonlyArray<{ path: string; message: string }>
                expect(details.length).toBeGreaterThan(0)
                expect(details.length).toBeLessThanOrEqual(20)
                for (const detail of details) expect(detail.path.length + detail.message.length).toBeLessThan(700)
              }
              // An error body; a dry run's report lists each record's own (bounded) errors.
              if (request.status >= 400) expect(reply.text.length, request.name).toBeLessThan(64 * 1024)
              expect(cpuMillis, request.name).toBeLessThan(request.cpuMillis ?? 60)
            }
          }),
        { timeout: 120_000 }
      )

      it.effect("a 422 with more problems than it lists says so, and lists the first of them by path", () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const reply = yield* send(url, token, upsert("", { external_id: "p", ...unknownKeys(500) }))
          expect(reply.answer.error).toEqual({
            code: "validation_failed",
            message: "the body is not valid; the first 20 problems are listed, more were omitted",
            details: many(20, (i) => ({ path: `$.k${i}`, message: "is not an allowed property" }))
          })
          // So does a query of thousands of unknown names, on an endpoint that takes none and on a list.
          const names = many(2_000, (i) => `x${i}=1`).join("&")
          for (const path of [`/me?${names}`, `/products?${names}`]) {
            const query = yield* call(url, "GET", path, { token })
            expect(query.status).toBe(422)
            expect(at(query.body, "error", "message")).toBe(
              "query parameters are not valid; the first 20 problems are listed, more were omitted"
            )
            expect(at(query.body, "error", "details")).toEqual(
              many(20, (i) => ({ path: `query.x${i}`, message: "is not an allowed property" }))
            )
          }
          const over = yield* send(url, token, upsert("", { external_id: "p", category_ids: fill(bad) }))
          // A list over its limit first, then its bad items within the limit: those past it are not decoded.
          expect(over.answer.error.message).toBe(
            "the body is not valid; the first 20 problems are listed, more were omitted"
          )
          expect(over.answer.error.details.slice(0, 4)).toEqual([
            { path: "$.category_ids", message: "must have 1-50 items" },
            { path: "$.category_ids[0]", message: "must be a string" },
            { path: "$.category_ids[0].x", message: "is not an allowed property" },
            { path: "$.category_ids[0].external_id", message: "is required" }
          ])
        })
      )

      it.effect("an import of 50 such records is queued at once, and its job fails each with its first problems", () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          const reply = yield* send(url, token, {
            name: "",
            method: "POST",
            path: "/imports",
            body: { records: many(50, () => badRecord) },
            status: 202
          })
          expect(reply.status).toBe(202)
          const job = yield* waitJob(url, token, reply.answer.job.id)
          expect(job.counts).toMatchObject({ total: 50, failed: 50 })
          const report = yield* call(url, "GET", `/imports/${job.id}`, { token })
          for (const record of records(report.body, "report", "records")) {
            expect(at(record, "error", "code")).toBe("validation_failed")
            // The decode stops once it has found one more problem than an answer lists; past the report's
            // byte budget a record keeps its code alone.
            const details = at(record, "error", "details")
            expect(Array.isArray(details) ? details.length : 0).toBeLessThanOrEqual(21)
          }
          expect(asArray(report.body, "report", "records", 0, "error", "details").length).toBeGreaterThan(0)
        })
      )

      it.effect("a key without a write scope gets its 403 before the body is decoded", () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const reader = yield* (yield* tenant()).key(["catalog:read", "prices:read"])
          for (const request of cases.filter((c) => c.status === 422 || c.status === 200)) {
            const reply = yield* send(url, reader, request)
            expect({ name: request.name, status: reply.status, code: reply.answer.error.code }).toEqual({
              name: request.name,
              status: 403,
              code: "insufficient_scope"
            })
          }
          // The scopes the body as sent would need, as the check after decoding names them.
          const price = yield* send(url, reader, upsert("", { external_id: "p", mode: "prices", price: "1" }))
          expect(price.answer.error.details).toEqual({ required: ["prices:write"] })
          const cost = yield* send(url, reader, upsert("", { external_id: "p", name: "P", cost: "1", ...bad }))
          expect(cost.answer.error.details).toEqual({ required: ["catalog:write", "costs:write"] })
        })
      )
    })

    it.effect(
      "/health keeps answering while they arrive four at a time",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* (yield* tenant()).key(writer)
          let sending = true
          const healthMillis: Array<number> = []
          const [replies] = yield* Effect.all(
            [
              // Four at a time (three at once held /health ~40 s before).
              Effect.all(
                cases.map((request) => send(url, token, request)),
                { concurrency: 4 }
              ).pipe(Effect.ensuring(Effect.sync(() => (sending = false)))),
              Effect.gen(function* () {
                while (sending) {
                  const started = performance.now()
                  const status = yield* Effect.promise(() => fetch(`${url}/health`).then((r) => r.status))
                  expect(status).toBe(200)
                  healthMillis.push(performance.now() - started)
                  yield* Effect.sleep("20 millis")
                }
              })
            ],
            { concurrency: "unbounded" }
          )
          console.log(
            `${cases.length} bodies four at a time: /health answered ${healthMillis.length} times meanwhile, the slowest in ${Math.max(...healthMillis).toFixed(0)} ms`
          )
          for (const [i, reply] of replies.entries()) expect(reply.status, cases[i]!.name).toBe(cases[i]!.status)
          expect(healthMillis.length).toBeGreaterThan(0)
          expect(Math.max(...healthMillis)).toBeLessThan(1_000)
        }),
      { timeout: 120_000 }
    )
  }
)
