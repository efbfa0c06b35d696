import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { JobStore } from "../Jobs/JobStore.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"
import { at, job, type JobCases, scope, uuid } from "./JobsFixtures.js"

/** Jobs in their queue: the pending limit, claims under a lease, heartbeats, one job of a connection at a time. */
export const jobQueueCases: JobCases = (it, suite) => {
  const { drain, insert } = suite
  describe("jobs", () => {
    it.effect("insert counts pending jobs per connection; get and list see the connection's own jobs", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        const mine = scope()
        const other = { ...mine, connectionId: uuid() as ConnectionId }
        const first = job(mine)
        expect(yield* insert(first, 2)).toBe(true)
        expect(yield* insert(job(mine), 2)).toBe(true)
        expect(yield* insert(job(mine), 2)).toBe(false)
        expect(yield* insert(job(other), 2)).toBe(true)
        expect(Option.getOrThrow(yield* jobs.get(mine, first.id))).toEqual(first)
        expect(Option.isNone(yield* jobs.get(other, first.id))).toBe(true)
        const all = yield* jobs.list(mine, { limit: 10 })
        expect(all.map((j) => j.id)).toEqual([...all.map((j) => j.id)].sort())
        expect(all).toHaveLength(2)
        const page = yield* jobs.list(mine, { limit: 10, cursor: all[0]!.id, kind: "import" })
        expect(page.map((j) => j.id)).toEqual(all.slice(1).map((j) => j.id))
      })
    )

    it.effect(
      "a job keeps the traceparent of the span that queued it through claim, finish and listings; none stays none",
      () =>
        Effect.gen(function* () {
          const jobs = yield* JobStore
          yield* drain("drainer")
          const owner = scope()
          const traced = job(owner, { traceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" })
          const untraced = job(owner)
          yield* insert(traced)
          yield* insert(untraced)
          const claimed = Option.getOrThrow(
            yield* jobs.claim({ workerId: "w", nowMillis: suite.epoch, leaseMillis: 1000, at })
          )
          expect(claimed.id).toBe(traced.id)
          expect(claimed.traceParent).toBe(traced.traceParent)
          expect(yield* jobs.finish(traced.id, "w", { state: "completed", failure: null, at })).toBe(true)
          expect(Option.getOrThrow(yield* jobs.get(owner, traced.id)).traceParent).toBe(traced.traceParent)
          expect(Option.getOrThrow(yield* jobs.get(owner, untraced.id)).traceParent).toBeNull()
          const listed = yield* jobs.listAll({ companyId: owner.companyId, limit: 10 })
          expect(listed.map((j) => [j.id, j.traceParent])).toEqual(
            [
              [traced.id, traced.traceParent],
              [untraced.id, null]
            ].sort(([a], [b]) => (a! < b! ? -1 : 1))
          )
        })
    )

    it.effect(
      "claim takes the claimable job that entered the queue first under a lease; an expired lease lets another worker take it",
      () =>
        Effect.gen(function* () {
          const jobs = yield* JobStore
          yield* drain("drainer")
          const now = suite.epoch
          const owner = scope()
          const older = job(owner)
          const newer = job(scope())
          yield* insert(older)
          yield* insert(newer)
          const first = Option.getOrThrow(yield* jobs.claim({ workerId: "w1", nowMillis: now, leaseMillis: 1000, at }))
          expect(first).toMatchObject({
            id: older.id,
            state: "running",
            leaseOwner: "w1",
            leaseUntil: now + 1000,
            attempts: 1,
            startedAt: at
          })
          const second = Option.getOrThrow(yield* jobs.claim({ workerId: "w2", nowMillis: now, leaseMillis: 1000, at }))
          expect(second.id).toBe(newer.id)
          expect(
            Option.isNone(yield* jobs.claim({ workerId: "w3", nowMillis: now + 500, leaseMillis: 1000, at }))
          ).toBe(true)
          expect(yield* jobs.heartbeat(older.id, "w1", now + 2000)).toBe(true)
          expect(yield* jobs.heartbeat(newer.id, "w2", now + 5000)).toBe(true)
          expect(
            Option.isNone(yield* jobs.claim({ workerId: "w3", nowMillis: now + 1500, leaseMillis: 1000, at }))
          ).toBe(true)
          // w1 died: after its lease, w3 takes the job over.
          const retaken = Option.getOrThrow(
            yield* jobs.claim({ workerId: "w3", nowMillis: now + 2001, leaseMillis: 1000, at: "later" })
          )
          expect(retaken).toMatchObject({ id: older.id, leaseOwner: "w3", attempts: 2, startedAt: at })
          expect(yield* jobs.heartbeat(older.id, "w1", now + 9000)).toBe(false)
          expect(yield* jobs.finish(older.id, "w1", { state: "completed", failure: null, at })).toBe(false)
          expect(
            yield* jobs.finish(older.id, "w3", { state: "failed", failure: { code: "x", message: "y" }, at: "end" })
          ).toBe(true)
          expect(Option.getOrThrow(yield* jobs.get(owner, older.id))).toMatchObject({
            state: "failed",
            failure: { code: "x", message: "y" },
            finishedAt: "end",
            leaseOwner: null,
            leaseUntil: null
          })
          expect(yield* jobs.release(newer.id, "w2", at)).toBe(true)
          expect(
            Option.getOrThrow(yield* jobs.claim({ workerId: "w4", nowMillis: now, leaseMillis: 1000, at })).id
          ).toBe(newer.id)
        })
    )

    it.effect(
      "releaseAll gives every running job back to the queue at once, keeping its place; queued and ended jobs stay",
      () =>
        Effect.gen(function* () {
          const jobs = yield* JobStore
          yield* drain("drainer")
          const now = suite.epoch
          const [a, b, c] = [job(scope()), job(scope()), job(scope())]
          for (const j of [a, b, c]) yield* insert(j)
          const runningA = Option.getOrThrow(
            yield* jobs.claim({ workerId: "w1", nowMillis: now, leaseMillis: 60_000, at })
          )
          const runningB = Option.getOrThrow(
            yield* jobs.claim({ workerId: "w2", nowMillis: now, leaseMillis: 60_000, at })
          )
          expect([runningA.id, runningB.id]).toEqual([a.id, b.id])
          expect(yield* jobs.finish(b.id, "w2", { state: "completed", failure: null, at })).toBe(true)
          expect(yield* jobs.releaseAll("released")).toBeGreaterThanOrEqual(1)
          expect(Option.getOrThrow(yield* jobs.get(a, a.id))).toMatchObject({
            state: "queued",
            leaseOwner: null,
            leaseUntil: null,
            updatedAt: "released"
          })
          expect(Option.getOrThrow(yield* jobs.get(b, b.id)).state).toBe("completed")
          // Long before w1's lease would have ended, a's place comes first again; w1 can no longer finish it.
          const again = Option.getOrThrow(
            yield* jobs.claim({ workerId: "w3", nowMillis: now + 1, leaseMillis: 60_000, at })
          )
          expect(again).toMatchObject({ id: a.id, leaseOwner: "w3", attempts: 2 })
          expect(yield* jobs.finish(a.id, "w1", { state: "completed", failure: null, at })).toBe(false)
          expect(
            Option.getOrThrow(yield* jobs.claim({ workerId: "w4", nowMillis: now + 1, leaseMillis: 60_000, at })).id
          ).toBe(c.id)
        })
    )

    it.effect("a connection's jobs run one at a time, in order", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        yield* drain("drainer")
        const now = suite.epoch
        const owner = scope()
        const a = job(owner, { queuedAt: 1 })
        const b = job(owner, { queuedAt: 2 })
        const c = job(scope(), { queuedAt: 3 })
        yield* insert(a)
        yield* insert(b)
        yield* insert(c)
        expect(Option.getOrThrow(yield* jobs.claim({ workerId: "w1", nowMillis: now, leaseMillis: 1000, at })).id).toBe(
          a.id
        )
        expect(Option.getOrThrow(yield* jobs.claim({ workerId: "w2", nowMillis: now, leaseMillis: 1000, at })).id).toBe(
          c.id
        )
        expect(Option.isNone(yield* jobs.claim({ workerId: "w3", nowMillis: now, leaseMillis: 1000, at }))).toBe(true)
        yield* jobs.finish(a.id, "w1", { state: "completed", failure: null, at })
        expect(Option.getOrThrow(yield* jobs.claim({ workerId: "w3", nowMillis: now, leaseMillis: 1000, at })).id).toBe(
          b.id
        )
      })
    )

    it.effect(
      "a claim prefers another company than avoidCompany, then a company with nothing running, then queue order",
      () =>
        Effect.gen(function* () {
          const jobs = yield* JobStore
          yield* drain("drainer")
          const now = suite.epoch
          const claimId = (workerId: string, avoidCompany?: CompanyId) =>
            Effect.map(
              jobs.claim({ workerId, nowMillis: now, leaseMillis: 1000, at, avoidCompany }),
              (claimed) => Option.getOrUndefined(claimed)?.id
            )
          // Company a queued first, on three connections; then company b, on two.
          const a = scope().companyId
          const b = scope().companyId
          const [a1, a2, a3] = [0, 1, 2].map(() => job({ companyId: a, connectionId: uuid() as ConnectionId }))
          const [b1, b2] = [0, 1].map(() => job({ companyId: b, connectionId: uuid() as ConnectionId }))
          for (const j of [a1!, a2!, a3!, b1!, b2!]) yield* insert(j)
          // A worker that just ran a's job takes b's, though a's are earlier in the queue; then the other way.
          expect(yield* claimId("w1", a)).toBe(b1!.id)
          expect(yield* claimId("w2", b)).toBe(a1!.id)
          // Both companies run a job: queue order.
          expect(yield* claimId("w3")).toBe(a2!.id)
          // b has nothing running now: its job comes before a's, though b was the worker's last company.
          yield* jobs.finish(b1!.id, "w1", { state: "completed", failure: null, at })
          expect(yield* claimId("w1", b)).toBe(b2!.id)
          // Only a's jobs are left: the worker that just ran one of a's still takes the next.
          yield* jobs.finish(a1!.id, "w2", { state: "completed", failure: null, at })
          expect(yield* claimId("w2", a)).toBe(a3!.id)
          expect(yield* claimId("w4", a)).toBeUndefined()
        })
    )

    it.effect("another company's preference never breaks a company's media order or a paused media job", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        yield* drain("drainer")
        const now = suite.epoch
        const claimId = (workerId: string, avoidCompany?: CompanyId) =>
          Effect.map(
            jobs.claim({ workerId, nowMillis: now, leaseMillis: 1000, at, avoidCompany }),
            (claimed) => Option.getOrUndefined(claimed)?.id
          )
        const [a, b, c] = [scope().companyId, scope().companyId, scope().companyId]
        const media = (companyId: CompanyId, state: "queued" | "paused" = "queued") =>
          job({ companyId, connectionId: uuid() as ConnectionId }, { kind: "media", state, scopes: ["media:write"] })
        const [a1, a2, bPaused, bQueued, c1] = [media(a), media(a), media(b, "paused"), media(b), media(c)]
        for (const j of [a1, a2, bPaused, bQueued, c1]) yield* insert(j)
        // b's queued media job waits for its paused one; a's second waits for its first, whoever ran last.
        expect(yield* claimId("w1", a)).toBe(c1.id)
        expect(yield* claimId("w2", c)).toBe(a1.id)
        expect(yield* claimId("w3", a)).toBeUndefined()
        yield* jobs.finish(a1.id, "w2", { state: "completed", failure: null, at })
        expect(yield* claimId("w2", a)).toBe(a2.id)
        expect(yield* jobs.finish(c1.id, "w1", { state: "completed", failure: null, at })).toBe(true)
        expect(yield* claimId("w1", c)).toBeUndefined()
      })
    )
  })
}
