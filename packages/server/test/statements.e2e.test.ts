import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { statementCounts } from "./StatementCounts.js"
import { isKeyLookup, statementLog } from "./StatementLog.js"
import { at, str } from "./Json.js"
import { call, TestServer, TestServerWith, testDatabase } from "./TestServer.js"

const writer = ["catalog:read", "catalog:write", "prices:read", "prices:write"]
const log = statementLog(testDatabase)

/** The statements one request runs, from the request to its answer. */
const statementsOf = <A, E, R>(request: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    yield* log.start
    const answer = yield* request
    return { answer, statements: yield* log.stop }
  })

/** The statements of a request and the background work it starts, until no statement has run for 300 ms. */
const statementsUntilQuiet = <A, E, R>(request: Effect.Effect<A, E, R>) =>
  Effect.map(log.untilQuiet(request), ({ answer, statements }) => ({
    answer,
    statements: statements.map((s) => s.text)
  }))

/** The pinned counts, shared with the check of docs/architecture.md's traces (see StatementCounts.ts). */
const expected = statementCounts[testDatabase]

const importOf = (count: number, prefix: string) => ({
  records: Array.from({ length: count }, (_, i) => ({
    resource: "products",
    body: { external_id: `${prefix}-${i}`, name: `${prefix} ${i}`, category_ids: [{ external_id: "c1" }] }
  }))
})

// The job worker polls only when woken by a queued job, so that its idle polls do not mix in.
layer(TestServerWith({ sql: log.wrap }, { JOB_POLL_MILLISECONDS: "600000" }), {
  excludeTestServices: true,
  timeout: 60_000
})(`statements per request on ${testDatabase}`, (it) => {
  it.effect("a GET by id, a feed poll, a create, an update and an import record run the statements counted here", () =>
    Effect.gen(function* () {
      const { url, tenant } = yield* TestServer
      const token = yield* (yield* tenant()).key(writer)
      expect(
        (yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "c1", name: "C1" } })).status
      ).toBe(200)
      // The server's start-up work (the staging sweep reads media) ends before anything is counted.
      yield* log.untilQuiet(Effect.void)

      const create = yield* statementsOf(
        call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p1", name: "P1", category_ids: [{ external_id: "c1" }] }
        })
      )
      expect(at(create.answer.body, "outcome")).toBe("created")
      const update = yield* statementsOf(
        call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p1", name: "P2", expected_revision: 1, category_ids: [{ external_id: "c1" }] }
        })
      )
      expect(at(update.answer.body, "outcome")).toBe("updated")
      const getById = yield* statementsOf(
        call(url, "GET", `/products/${at(create.answer.body, "record", "id")}`, { token })
      )
      expect(at(getById.answer.body, "record")).toMatchObject({
        external_id: "p1",
        name: "P2",
        revision: 2,
        category_ids: [expect.any(String)]
      })
      // Nothing committed since: on SQLite the record is still in memory.
      const getByIdAgain = yield* statementsOf(
        call(url, "GET", `/products/${at(create.answer.body, "record", "id")}`, { token })
      )
      expect(at(getByIdAgain.answer.body, "record")).toEqual(at(getById.answer.body, "record"))
      const list = yield* statementsOf(call(url, "GET", "/products?limit=20", { token }))
      expect(at(list.answer.body, "records")).toEqual([expect.objectContaining({ external_id: "p1", name: "P2" })])
      const head = at((yield* call(url, "GET", "/products?limit=1", { token })).body, "change_cursor")
      const caughtUp = at((yield* call(url, "GET", `/changes?cursor=${head}`, { token })).body, "next_cursor")
      const feedPoll = yield* statementsOf(call(url, "GET", `/changes?cursor=${caughtUp}`, { token }))
      expect(at(feedPoll.answer.body, "records")).toEqual([])

      // An import of one record, then of a batch: the same statements.
      const one = yield* statementsUntilQuiet(call(url, "POST", "/imports", { token, body: importOf(1, "one") }))
      const batch = yield* statementsUntilQuiet(call(url, "POST", "/imports", { token, body: importOf(25, "batch") }))
      for (const submitted of [one, batch]) {
        const job = at(
          (yield* call(url, "GET", `/imports/${str(submitted.answer.body, "job", "id")}`, { token })).body,
          "job"
        )
        expect(job).toMatchObject({ state: "completed", counts: { failed: 0 } })
      }

      const requests = { getById, getByIdAgain, list, feedPoll, create, update, importOfOne: one, importOfBatch: batch }
      for (const [name, request] of Object.entries(requests))
        expect({ name, keyLookups: request.statements.filter(isKeyLookup).length }).toEqual({
          name,
          keyLookups: expect.toSatisfy((n: number) => n <= (name.startsWith("import") ? 2 : 1))
        })
      const counts = Object.fromEntries(
        Object.entries(requests).map(([name, request]) => [
          name,
          request.statements.filter((statement) => !isKeyLookup(statement)).length
        ])
      )
      console.log(`statements (${testDatabase}): ${JSON.stringify(counts)}`)
      if (process.env.STATEMENTS_VERBOSE !== undefined)
        console.log(
          JSON.stringify(
            {
              getById: getById.statements,
              list: list.statements,
              feedPoll: feedPoll.statements,
              create: create.statements,
              update: update.statements,
              importOfBatch: batch.statements
            },
            null,
            1
          )
        )
      expect(counts).toEqual(expected)
    })
  )
})
