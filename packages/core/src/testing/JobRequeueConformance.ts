import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { StoredJob } from "../Jobs/Job.js"
import { JobStore } from "../Jobs/JobStore.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"
import { at, job, type JobCases, scope, uuid } from "./JobsFixtures.js"

/** Jobs started again (`requeue`) and listed across connections (`listAll`). */
export const jobRequeueCases: JobCases = (it, suite) => {
  const { drain, insert } = suite
  describe("jobs", () => {
    it.effect("requeue restarts a job in one of the given states, within the pending limit", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        const transactor = yield* Transactor
        const owner = scope()
        const failed = job(owner, { state: "failed", finishedAt: at, failure: { code: "x", message: "y" } })
        const done = job(owner, { state: "completed" })
        yield* insert(failed)
        yield* insert(done)
        const request = {
          from: ["failed", "paused"] as const,
          run: 2,
          scopes: ["prices:write" as const],
          nowMillis: 5,
          at: "retry",
          maxPending: 1,
          traceParent: null
        }
        const requeue = (id: string, max = 1) =>
          transactor.withTransaction(jobs.requeue(owner, id, { ...request, maxPending: max }))
        expect(yield* requeue(done.id)).toEqual({ _tag: "NotInState", state: "completed" })
        expect(yield* requeue(uuid())).toEqual({ _tag: "NotInState", state: null })
        const result = yield* requeue(failed.id)
        expect(result._tag).toBe("Requeued")
        expect(Option.getOrThrow(yield* jobs.get(owner, failed.id))).toMatchObject({
          state: "queued",
          run: 2,
          scopes: ["prices:write"],
          queuedAt: 5,
          failure: null,
          finishedAt: null,
          updatedAt: "retry"
        })
        expect(Option.getOrThrow(yield* jobs.get(owner, failed.id)).keyId).toBe(failed.keyId)
        // A retry by another key of the connection makes the job act for that key from then on.
        const retried = job(owner, { state: "failed" })
        yield* insert(retried)
        yield* transactor.withTransaction(
          jobs.requeue(owner, retried.id, { ...request, keyId: "key-2", maxPending: 5 })
        )
        expect(Option.getOrThrow(yield* jobs.get(owner, retried.id)).keyId).toBe("key-2")
        const another = job(owner, { state: "failed" })
        yield* insert(another)
        expect(yield* requeue(another.id)).toEqual({ _tag: "LimitReached" })
        expect(yield* transactor.withTransaction(jobs.requeue(scope(), another.id, request))).toEqual({
          _tag: "NotInState",
          state: null
        })
      })
    )

    it.effect("a requeue keeps the retrying request's traceparent in place of the first one's, or none", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        const transactor = yield* Transactor
        yield* drain("drainer")
        const owner = scope()
        const first = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        const retrying = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        const failed = job(owner, { state: "failed", traceParent: first })
        yield* insert(failed)
        const request = {
          from: ["failed"] as const,
          run: 2,
          scopes: ["catalog:write" as const],
          nowMillis: 5,
          at,
          maxPending: 5
        }
        const requeued = yield* transactor.withTransaction(
          jobs.requeue(owner, failed.id, { ...request, traceParent: retrying })
        )
        expect(requeued._tag === "Requeued" ? requeued.job.traceParent : undefined).toBe(retrying)
        expect(Option.getOrThrow(yield* jobs.get(owner, failed.id)).traceParent).toBe(retrying)
        // Claimed by a worker, the new run carries the retrying request's traceparent (its span's link).
        const claimed = Option.getOrThrow(
          yield* jobs.claim({ workerId: "w", nowMillis: suite.epoch, leaseMillis: 1000, at })
        )
        expect([claimed.id, claimed.traceParent]).toEqual([failed.id, retrying])
        yield* jobs.finish(claimed.id, "w", { state: "failed", failure: { code: "x", message: "y" }, at })
        // Retried again by an untraced request: the job keeps no traceparent, not the first request's.
        yield* transactor.withTransaction(jobs.requeue(owner, failed.id, { ...request, run: 3, traceParent: null }))
        expect(Option.getOrThrow(yield* jobs.get(owner, failed.id)).traceParent).toBeNull()
      })
    )

    it.effect("a requeue with keepPlace keeps the job's place in the queue; without it the job goes last", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        const transactor = yield* Transactor
        yield* drain("drainer")
        const now = suite.epoch
        const owner = scope()
        const first = job(owner, { state: "paused" })
        const second = job(owner)
        const third = job(owner, { state: "failed" })
        yield* insert(first)
        yield* insert(second)
        yield* insert(third)
        const request = {
          from: ["failed", "paused"] as const,
          run: 2,
          scopes: ["media:write" as const],
          nowMillis: now,
          at,
          maxPending: 20,
          traceParent: null
        }
        yield* transactor.withTransaction(jobs.requeue(owner, third.id, request))
        yield* transactor.withTransaction(jobs.requeue(owner, first.id, { ...request, keepPlace: true }))
        const order: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const claimed = Option.getOrThrow(yield* jobs.claim({ workerId: "w", nowMillis: now, leaseMillis: 1000, at }))
          order.push(claimed.id)
          yield* jobs.finish(claimed.id, "w", { state: "completed", failure: null, at })
        }
        expect(order).toEqual([first.id, second.id, third.id])
      })
    )

    it.effect("listAll pages jobs of every connection in id order, narrowed by company, state and kind", () =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        const company = uuid() as CompanyId
        const a = { companyId: company, connectionId: uuid() as ConnectionId }
        const b = { companyId: company, connectionId: uuid() as ConnectionId }
        const elsewhere = scope()
        const made = [
          job(a, { state: "paused", kind: "media" }),
          job(b, { state: "paused", kind: "media" }),
          job(a, { state: "queued", kind: "media" }),
          job(b, { state: "failed", kind: "import" }),
          job(elsewhere, { state: "paused", kind: "media" })
        ]
        for (const j of made) yield* insert(j)
        const ids = (list: ReadonlyArray<StoredJob>) => list.map((j) => j.id)
        const ofCompany = (list: ReadonlyArray<StoredJob>) => list.filter((j) => made.some((m) => m.id === j.id))
        const sorted = (list: ReadonlyArray<StoredJob>) => [...list].map((j) => j.id).sort()
        expect(ids(yield* jobs.listAll({ companyId: company, state: "paused", limit: 10 }))).toEqual(
          sorted([made[0]!, made[1]!])
        )
        expect(ids(yield* jobs.listAll({ companyId: company, limit: 10 }))).toEqual(sorted(made.slice(0, 4)))
        expect(ids(yield* jobs.listAll({ companyId: company, kind: "import", limit: 10 }))).toEqual([made[3]!.id])
        expect(ids(yield* jobs.listAll({ id: made[4]!.id, limit: 10 }))).toEqual([made[4]!.id])
        expect(yield* jobs.listAll({ id: made[4]!.id, companyId: company, limit: 10 })).toEqual([])
        expect(ids(ofCompany(yield* jobs.listAll({ state: "paused", limit: 1000 })))).toEqual(
          sorted([made[0]!, made[1]!, made[4]!])
        )
        const first = yield* jobs.listAll({ companyId: company, limit: 2 })
        const rest = yield* jobs.listAll({ companyId: company, cursor: first[1]!.id, limit: 10 })
        expect([...ids(first), ...ids(rest)]).toEqual(sorted(made.slice(0, 4)))
        expect(ids(yield* jobs.listAll({ ids: [made[4]!.id, made[1]!.id, uuid()], limit: 10 }))).toEqual(
          sorted([made[1]!, made[4]!])
        )
        expect(ids(yield* jobs.listAll({ ids: ids(made), state: "failed", limit: 10 }))).toEqual([made[3]!.id])
        expect(yield* jobs.listAll({ ids: [], limit: 10 })).toEqual([])
      })
    )
  })
}
