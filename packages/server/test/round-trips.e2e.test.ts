import { unavailableReason } from "@catalog-sync/adapter-pg/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { label, roundTrips } from "./RoundTrips.js"
import { isKeyLookup, statementLog } from "./StatementLog.js"
import { at, str } from "./Json.js"
import { call, TestServer, TestServerWith } from "./TestServer.js"

const skip = unavailableReason()
if (skip !== undefined) console.warn(`\n*** ${skip} ***\n`)

const writer = ["catalog:read", "catalog:write"]
const log = statementLog("postgres")

/**
 * What each request sends to PostgreSQL, statement by statement, and why. Every statement is a round trip
 * (answered before the next one is sent: none overlaps another), so at a round trip of R ms a request
 * spends `roundTrips` x R waiting on the network. One company's writes wait for each other from the
 * statement that takes the company's lock to COMMIT (`underCompanyLock`; here always the change append,
 * which moves the company's `change_heads` row and is the transaction's last statement): at R ms that row
 * is held for (underCompanyLock - 1) x R plus the commit, whichever instance the writes go through. The
 * company's rate window is a row of the whole company too, written by every request outside any
 * transaction (`companyRowsAlone`): held for its statement and commit on the server only. The job queue's lock is per connection (`underConnectionLock`).
 * Key lookups are cached while the keys' version (read with each second's ping) stays the same: one runs
 * now and then, at most one per request (two for an import: its job checks the key again), and is set
 * apart here.
 */
const expected = {
  create: {
    statements: [
      // The key's limit and the company's, counted in the database so that every instance counts them, in
      // one statement (the company's only when the key's allows the request).
      "rate windows of the key and company",
      "BEGIN",
      // The Idempotency-Key's row, claimed before the write: a retry waits or gets the stored answer.
      "idempotency claim",
      // Is there a record for this external id (create or update), and the category_ids' records: one
      // statement for both resources.
      "mapping lookups (the record's and its references')",
      // The new record's external id (ON CONFLICT: a create of the same id through another request).
      "mappings insert",
      // The record and its categories as rows (for list filters by category), in one statement.
      "record insert with its category rows",
      // The answer stored with the write it answers, so that a retry after COMMIT gets it.
      "idempotency completion",
      // The feed's entry, numbered from the company's head row: the company's lock, held to COMMIT. The
      // transaction's entries wait for its end, so that the lock is taken by its last statement.
      "change append (company head row)",
      "COMMIT"
    ],
    roundTrips: 9,
    underCompanyLock: 2,
    underConnectionLock: 0,
    companyRowsAlone: 1
  },
  update: {
    statements: [
      "rate windows of the key and company",
      "BEGIN",
      "idempotency claim",
      "mapping lookups (the record's and its references')",
      // The record found, to merge the body into and to compare with `expected_revision`.
      "record read",
      // A compare-and-set on the revision: a concurrent update of the record makes it match nothing (409).
      "record update",
      // The category rows are unchanged, so none is written.
      "idempotency completion",
      "change append (company head row)",
      "COMMIT"
    ],
    roundTrips: 9,
    underCompanyLock: 2,
    underConnectionLock: 0,
    companyRowsAlone: 1
  },
  // A connector's poll with an up-to-date cursor: the company's head, and no page to read.
  feedPoll: {
    statements: ["rate windows of the key and company", "feed head read"],
    roundTrips: 2,
    underCompanyLock: 0,
    underConnectionLock: 0,
    companyRowsAlone: 1
  },
  // POST /imports of 25 records, up to its answer.
  importRequest: {
    statements: [
      "rate windows of the key and company",
      "BEGIN",
      "idempotency claim",
      // The job's writes join the idempotent write's transaction (no savepoint). The connection's pending jobs
      // (at most 20) are counted and the job added under the connection's lock.
      "advisory lock jobs",
      "pending jobs count",
      "job insert",
      // The records, stored as they came, for the worker.
      "import records insert",
      "idempotency completion",
      "COMMIT"
    ],
    roundTrips: 9,
    underCompanyLock: 0,
    underConnectionLock: 6,
    companyRowsAlone: 1
  },
  // Its job, from the claim of the worker the request woke to the job's end: one transaction for the batch.
  importJob: {
    statements: [
      // The oldest claimable job, taken with a lease (FOR UPDATE SKIP LOCKED: claimers never wait).
      "job claim",
      "import records read",
      "BEGIN",
      // The lease still held (and extended): a worker that lost it writes nothing.
      "lease check",
      // Set-based: the batch's mappings read in one statement per resource, and written in one per table.
      "mapping lookup (products)",
      "mapping lookup (categories)",
      "mappings insert",
      "records insert",
      "category rows insert",
      // The records' durable results, committed with the writes.
      "import records applied",
      // The batch's 25 changes in one statement, the transaction's last: the company's lock, held to COMMIT.
      "change append (company head row)",
      "COMMIT",
      "job end"
    ],
    roundTrips: 13,
    underCompanyLock: 2,
    underConnectionLock: 0,
    companyRowsAlone: 0
  }
}

describe.skipIf(skip !== undefined)("round trips on PostgreSQL", () => {
  // The job worker polls only when woken by a queued job, so that its idle polls do not mix in.
  layer(TestServerWith({ sql: log.wrap }, { JOB_POLL_MILLISECONDS: "600000" }, { database: "postgres" }), {
    excludeTestServices: true,
    timeout: 60_000
  })("round trips per request", (it) => {
    it.effect("a create, an update, a feed poll and an import of 25 make the round trips listed here", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const owner = yield* tenant()
        const token = yield* owner.key(writer)
        const scope = { companyId: owner.companyId, connectionId: owner.connectionId }
        expect(
          (yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "c1", name: "C1" } })).status
        ).toBe(200)
        // The server's start-up work (the staging sweep reads media) ends before anything is counted.
        yield* log.untilQuiet(Effect.void)

        const create = yield* log.untilQuiet(
          call(url, "POST", "/products/upsert", {
            token,
            body: { external_id: "p1", name: "P1", category_ids: [{ external_id: "c1" }] }
          })
        )
        expect(at(create.answer.body, "outcome")).toBe("created")
        const update = yield* log.untilQuiet(
          call(url, "POST", "/products/upsert", {
            token,
            body: { external_id: "p1", name: "P2", expected_revision: 1, category_ids: [{ external_id: "c1" }] }
          })
        )
        expect(at(update.answer.body, "outcome")).toBe("updated")
        const head = at((yield* call(url, "GET", "/products?limit=1", { token })).body, "change_cursor")
        const caughtUp = at((yield* call(url, "GET", `/changes?cursor=${head}`, { token })).body, "next_cursor")
        const feedPoll = yield* log.untilQuiet(call(url, "GET", `/changes?cursor=${caughtUp}`, { token }))
        expect(at(feedPoll.answer.body, "records")).toEqual([])
        const imported = yield* log.untilQuiet(
          call(url, "POST", "/imports", {
            token,
            body: {
              records: Array.from({ length: 25 }, (_, i) => ({
                resource: "products",
                body: { external_id: `batch-${i}`, name: `Batch ${i}`, category_ids: [{ external_id: "c1" }] }
              }))
            }
          })
        )
        const job = at(
          (yield* call(url, "GET", `/imports/${str(imported.answer.body, "job", "id")}`, { token })).body,
          "job"
        )
        expect(job).toMatchObject({ state: "completed", counts: { created: 25, failed: 0 } })

        // The request ends with its COMMIT (the worker can only see the job after it), the job with its end;
        // the worker then looks for its next job once, and finds none.
        const all = imported.statements
        const requestEnd = all.findIndex((s) => s.text === "COMMIT") + 1
        const jobEnd = all.findIndex((s) => label(s) === "job end") + 1
        expect(all.slice(jobEnd).map(label)).toEqual(["job claim"])
        const requests = {
          create: create.statements,
          update: update.statements,
          feedPoll: feedPoll.statements,
          importRequest: all.slice(0, requestEnd),
          importJob: all.slice(requestEnd, jobEnd)
        }
        for (const [name, statements] of Object.entries(requests))
          expect({ name, keyLookups: statements.filter((s) => isKeyLookup(s.text)).length }).toEqual({
            name,
            keyLookups: expect.toSatisfy((n: number) => n <= 1)
          })
        const measured = Object.fromEntries(
          Object.entries(requests).map(([name, all]) => {
            const statements = all.filter((s) => !isKeyLookup(s.text))
            return [name, { statements: statements.map(label), ...roundTrips(statements, scope) }]
          })
        )
        console.log(
          `round trips (under the company lock): ${Object.entries(measured)
            .map(([name, m]) => `${name} ${m.roundTrips} (${m.underCompanyLock})`)
            .join(", ")}`
        )
        expect(measured).toEqual(expected)
        expect(Object.values(requests).flatMap((statements) => statements.filter((s) => s.overlapped))).toEqual([])
      })
    )
  })
})
