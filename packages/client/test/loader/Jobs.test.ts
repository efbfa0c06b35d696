import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import type { Client } from "../../src/Client.js"
import { CatalogSyncError } from "../../src/Errors.js"
import * as Jobs from "../../src/loader/Jobs.js"

const ids = [
  "01a20000-0000-7000-8000-000000000001",
  "01a20000-0000-7000-8000-000000000002",
  "01a20000-0000-7000-8000-000000000003"
]
const job = (id: string, state: string) => ({
  id,
  kind: "import",
  state,
  counts: {
    total: 1,
    created: state === "completed" ? 1 : 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    pending: state === "completed" ? 0 : 1
  },
  run: 1,
  attempts: 1,
  failure: null,
  created_at: "2026-01-01T00:00:00Z",
  started_at: null,
  finished_at: null,
  updated_at: "2026-01-01T00:00:00Z"
})

/** A server holding `jobs` (id -> state); records the requests the tracker makes. */
const fakeServer = (jobs: Map<string, string>) => {
  const requests: Array<string> = []
  const notFound = () =>
    new CatalogSyncError({ status: 404, code: "not_found", message: "no such job", request_id: "r" })
  const client = {
    jobs: {
      get: (id: string) =>
        Effect.suspend(() => {
          requests.push(`get ${id}`)
          const state = jobs.get(id)
          return state === undefined
            ? Effect.fail(notFound())
            : Effect.succeed({ request_id: "r", job: job(id, state), report: null })
        }),
      list: (query: { readonly cursor?: string }) =>
        Effect.sync(() => {
          requests.push(`list ${query.cursor}`)
          const records = Array.from(jobs, ([id, state]) => job(id, state)).filter(
            (j) => query.cursor === undefined || j.id > query.cursor
          )
          return { request_id: "r", records, next_cursor: null, has_more: false }
        })
    }
  } as unknown as Client
  return { client, requests }
}

describe("job ends", () => {
  const ended = (
    state: string,
    counts: { failed: number; pending: number },
    failure: { code: string; message: string } | null = null
  ) =>
    ({
      ...job(ids[0]!, state),
      counts: { total: 2, created: 2 - counts.failed - counts.pending, updated: 0, unchanged: 0, ...counts },
      failure
    }) as Jobs.JobRecord

  it("reads record failures from any end state; a job that could not finish is one to retry", () => {
    expect(Jobs.settledEveryRecord(ended("completed", { failed: 0, pending: 0 }))).toBe(true)
    // Record failures: `failed` today, `completed` with failed records counted once jobs follow the spec.
    expect(Jobs.settledEveryRecord(ended("failed", { failed: 1, pending: 0 }))).toBe(true)
    expect(Jobs.settledEveryRecord(ended("completed", { failed: 1, pending: 0 }))).toBe(true)
    // Could not finish: failed as a whole, failed with no record failure, paused, records left pending.
    expect(
      Jobs.settledEveryRecord(
        ended("failed", { failed: 0, pending: 2 }, { code: "storage_unavailable", message: "busy" })
      )
    ).toBe(false)
    expect(
      Jobs.settledEveryRecord(ended("failed", { failed: 1, pending: 0 }, { code: "internal_error", message: "bug" }))
    ).toBe(false)
    expect(Jobs.settledEveryRecord(ended("failed", { failed: 0, pending: 0 }))).toBe(false)
    expect(Jobs.settledEveryRecord(ended("paused", { failed: 0, pending: 1 }))).toBe(false)
  })
})

describe("job tracker", () => {
  it.live("reads many jobs with one list page starting just below the oldest, and a single job directly", () =>
    Effect.gen(function* () {
      const jobs = new Map([
        [ids[0]!, "running"],
        [ids[1]!, "queued"]
      ])
      const server = fakeServer(jobs)
      const tracker = yield* Jobs.make(() => server.client, { pollInterval: "5 millis" })
      const both = yield* Effect.forkChild(
        Effect.all([tracker.await(ids[0]!), tracker.await(ids[1]!)], { concurrency: 2 })
      )
      yield* Effect.sleep("30 millis")
      jobs.set(ids[0]!, "completed")
      jobs.set(ids[1]!, "failed")
      const [first, second] = yield* Fiber.join(both)
      expect([first.job.state, second.job.state]).toEqual(["completed", "failed"])
      expect(server.requests.every((r) => r === `list ${Jobs.predecessor(ids[0]!)}`)).toBe(true)

      server.requests.length = 0
      jobs.set(ids[2]!, "completed")
      expect((yield* tracker.await(ids[2]!)).job.state).toBe("completed")
      expect(server.requests).toEqual([`get ${ids[2]}`])
    })
  )

  it.live("fails only the wait of a job the server no longer has", () =>
    Effect.gen(function* () {
      const server = fakeServer(new Map([[ids[1]!, "completed"]]))
      const tracker = yield* Jobs.make(() => server.client, { pollInterval: "5 millis" })
      const [gone, there] = yield* Effect.all([Effect.flip(tracker.await(ids[0]!)), tracker.await(ids[1]!)], {
        concurrency: 2
      })
      expect(gone).toMatchObject({ code: "not_found" })
      expect(there.job.state).toBe("completed")
    })
  )

  it.live("does not poll while a submission is under way (up to the longest gap)", () =>
    Effect.gen(function* () {
      const server = fakeServer(new Map([[ids[0]!, "completed"]]))
      const tracker = yield* Jobs.make(() => server.client, { pollInterval: "5 millis", maxGap: "10 seconds" })
      const submission = yield* Effect.forkChild(tracker.submitting(Effect.sleep("80 millis")))
      yield* Effect.sleep("10 millis")
      const waiting = yield* Effect.forkChild(tracker.await(ids[0]!))
      yield* Fiber.join(submission)
      const polledDuring = server.requests.length
      yield* Fiber.join(waiting)
      expect(polledDuring).toBe(0)
      expect(server.requests.length).toBeGreaterThan(0)
    })
  )
})
