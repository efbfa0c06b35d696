import { describe, expect, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { ImportItem } from "../Imports/ImportStore.js"
import { ImportStore } from "../Imports/ImportStore.js"
import type { StoredJob } from "../Jobs/Job.js"
import { JobStore } from "../Jobs/JobStore.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"

const uuid = () => globalThis.crypto.randomUUID()
const at = "2026-01-01T00:00:00.000Z"
let clock = 1_000_000
const scope = () => ({ companyId: uuid() as CompanyId, connectionId: uuid() as ConnectionId })

const job = (
  of: { companyId: CompanyId; connectionId: ConnectionId },
  overrides: Partial<StoredJob> = {}
): StoredJob => ({
  id: uuid(),
  ...of,
  keyId: uuid(),
  kind: "import",
  state: "queued",
  scopes: ["catalog:write"],
  run: 1,
  attempts: 0,
  queuedAt: ++clock,
  leaseOwner: null,
  leaseUntil: null,
  failure: null,
  createdAt: at,
  startedAt: null,
  finishedAt: null,
  updatedAt: at,
  traceParent: null,
  ...overrides
})

const item = (jobId: string, index: number): ImportItem => ({
  jobId,
  index,
  resource: "categories",
  body: { external_id: `c${index}`, name: `C ${index}`, nested: { keep: [1, "two"] } },
  externalId: `c${index}`,
  status: "pending",
  outcome: null,
  recordId: null,
  error: null,
  run: 1,
  updatedAt: at
})

/**
 * The contract of JobStore and ImportStore (in memory, SQLite, PostgreSQL). Claims act on every job of
 * the store, so each test that claims first drains what earlier tests left claimable far in the past.
 */
export const runJobsConformance = (name: string, ports: Layer.Layer<JobStore | ImportStore | Transactor, unknown>) =>
  layer(ports, { timeout: 60_000 })(`jobs port conformance: ${name}`, (it) => {
    // A time far after every earlier lease, so that only the jobs of this test can be claimed once drained.
    let epoch = 10_000_000_000
    const drain = (workerId: string) =>
      Effect.gen(function* () {
        const jobs = yield* JobStore
        epoch += 10_000_000
        for (;;) {
          const claimed = yield* jobs.claim({ workerId, nowMillis: epoch, leaseMillis: 1, at })
          if (Option.isNone(claimed)) return
          yield* jobs.finish(claimed.value.id, workerId, { state: "completed", failure: null, at })
        }
      })
    const insert = (j: StoredJob, max = 20) =>
      Effect.flatMap(Transactor, (t) => t.withTransaction(Effect.flatMap(JobStore, (s) => s.insert(j, max))))

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
              yield* jobs.claim({ workerId: "w", nowMillis: epoch, leaseMillis: 1000, at })
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
            const now = epoch
            const owner = scope()
            const older = job(owner)
            const newer = job(scope())
            yield* insert(older)
            yield* insert(newer)
            const first = Option.getOrThrow(
              yield* jobs.claim({ workerId: "w1", nowMillis: now, leaseMillis: 1000, at })
            )
            expect(first).toMatchObject({
              id: older.id,
              state: "running",
              leaseOwner: "w1",
              leaseUntil: now + 1000,
              attempts: 1,
              startedAt: at
            })
            const second = Option.getOrThrow(
              yield* jobs.claim({ workerId: "w2", nowMillis: now, leaseMillis: 1000, at })
            )
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
            const now = epoch
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
          const now = epoch
          const owner = scope()
          const a = job(owner, { queuedAt: 1 })
          const b = job(owner, { queuedAt: 2 })
          const c = job(scope(), { queuedAt: 3 })
          yield* insert(a)
          yield* insert(b)
          yield* insert(c)
          expect(
            Option.getOrThrow(yield* jobs.claim({ workerId: "w1", nowMillis: now, leaseMillis: 1000, at })).id
          ).toBe(a.id)
          expect(
            Option.getOrThrow(yield* jobs.claim({ workerId: "w2", nowMillis: now, leaseMillis: 1000, at })).id
          ).toBe(c.id)
          expect(Option.isNone(yield* jobs.claim({ workerId: "w3", nowMillis: now, leaseMillis: 1000, at }))).toBe(true)
          yield* jobs.finish(a.id, "w1", { state: "completed", failure: null, at })
          expect(
            Option.getOrThrow(yield* jobs.claim({ workerId: "w3", nowMillis: now, leaseMillis: 1000, at })).id
          ).toBe(b.id)
        })
      )

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
            yield* jobs.claim({ workerId: "w", nowMillis: epoch, leaseMillis: 1000, at })
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
          const now = epoch
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
            const claimed = Option.getOrThrow(
              yield* jobs.claim({ workerId: "w", nowMillis: now, leaseMillis: 1000, at })
            )
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

    describe("import records", () => {
      it.effect("markAppliedMany marks each record with its own outcome and id, skipping applied ones", () =>
        Effect.gen(function* () {
          const store = yield* ImportStore
          const owner = job(scope())
          yield* insert(owner)
          yield* store.insertItems([0, 1, 2, 3].map((index) => item(owner.id, index)))
          const [a, b, c] = [uuid(), uuid(), uuid()]
          expect(yield* store.markApplied(owner.id, 2, { outcome: "created", recordId: c, run: 1, at: "t1" })).toBe(
            true
          )
          const marked = yield* store.markAppliedMany(
            owner.id,
            [
              { index: 0, outcome: "created", recordId: a },
              { index: 1, outcome: "unchanged", recordId: b },
              { index: 2, outcome: "updated", recordId: a }
            ],
            { run: 2, at: "t2" }
          )
          expect(marked).toBe(2)
          expect(yield* store.markAppliedMany(owner.id, [], { run: 2, at: "t2" })).toBe(0)
          const items = yield* store.items(owner.id)
          expect(items.map((i) => [i.status, i.outcome, i.recordId, i.run, i.updatedAt])).toEqual([
            ["applied", "created", a, 2, "t2"],
            ["applied", "unchanged", b, 2, "t2"],
            ["applied", "created", c, 1, "t1"],
            ["pending", null, null, 1, items[3]!.updatedAt]
          ])
        })
      )

      it.effect(
        "items round-trip; markApplied once; failures never overwrite an applied record; a retry resets the rest",
        () =>
          Effect.gen(function* () {
            const store = yield* ImportStore
            const owner = job(scope())
            yield* insert(owner)
            yield* store.insertItems([item(owner.id, 2), item(owner.id, 0), item(owner.id, 1)])
            expect(yield* store.items(owner.id)).toEqual([item(owner.id, 0), item(owner.id, 1), item(owner.id, 2)])
            // A body keeps every key as sent, `__proto__` too: the per-record schema check must see it to refuse it.
            const other = job(scope())
            yield* insert(other)
            yield* store.insertItems([
              {
                ...item(other.id, 0),
                body: JSON.parse(`{"external_id":"p","__proto__":{"price":"1"}}`) as Record<string, unknown>
              }
            ])
            const [back] = yield* store.items(other.id)
            expect(Object.keys(back!.body)).toEqual(["external_id", "__proto__"])
            const recordId = uuid()
            expect(yield* store.markApplied(owner.id, 0, { outcome: "created", recordId, run: 1, at: "t1" })).toBe(true)
            expect(yield* store.markApplied(owner.id, 0, { outcome: "updated", recordId, run: 1, at: "t2" })).toBe(
              false
            )
            const error = {
              code: "unresolved_reference",
              message: "m",
              details: [{ path: "$.records[1].body.parent_id", message: "n" }]
            }
            yield* store.markFailed(owner.id, 0, { error, run: 1, at: "t3" })
            yield* store.markFailed(owner.id, 1, { error, run: 1, at: "t3" })
            const [applied, failed, pending] = yield* store.items(owner.id)
            expect(applied).toMatchObject({
              status: "applied",
              outcome: "created",
              recordId,
              error: null,
              run: 1,
              updatedAt: "t1"
            })
            expect(failed).toMatchObject({ status: "failed", outcome: null, recordId: null, error, updatedAt: "t3" })
            expect(pending!.status).toBe("pending")
            const counts = yield* store.counts([owner.id, uuid()])
            expect(counts.size).toBe(1)
            expect(counts.get(owner.id)).toEqual({
              total: 3,
              created: 1,
              updated: 0,
              unchanged: 0,
              failed: 1,
              pending: 1
            })
            expect([...(yield* store.resetFailed(owner.id, 2, "t4"))].sort()).toEqual([1, 2])
            const after = yield* store.items(owner.id)
            expect(after.map((i) => [i.status, i.run])).toEqual([
              ["applied", 1],
              ["pending", 2],
              ["pending", 2]
            ])
            expect(after[1]!.error).toBeNull()
          })
      )

      it.effect(
        "purgeFinished deletes the oldest finished import jobs with their records, in batches; never pending, paused or media jobs",
        () =>
          Effect.gen(function* () {
            const store = yield* ImportStore
            const jobs = yield* JobStore
            const transactor = yield* Transactor
            // Finished long before every other test's jobs, so that only these are old enough.
            const old = (second: number) => `2000-01-01T00:00:${String(second).padStart(2, "0")}.000Z`
            const owner = scope()
            const made = {
              completed: job(owner, { state: "completed", finishedAt: old(2) }),
              failed: job(owner, { state: "failed", finishedAt: old(1) }),
              young: job(owner, { state: "completed", finishedAt: "2000-06-01T00:00:00.000Z" }),
              running: job(owner, { state: "running", finishedAt: old(3), leaseOwner: "w", leaseUntil: 1 }),
              queued: job(owner, { state: "queued", finishedAt: old(4) }),
              paused: job(owner, { state: "paused", finishedAt: old(5) }),
              media: job(owner, { kind: "media", state: "failed", finishedAt: old(6) })
            }
            for (const j of Object.values(made)) {
              yield* insert(j)
              if (j.kind === "import") yield* store.insertItems([item(j.id, 0), item(j.id, 1)])
            }
            const purge = (limit: number) =>
              transactor.withTransaction(store.purgeFinished("2000-03-01T00:00:00.000Z", limit))
            const left = Effect.gen(function* () {
              const out: Array<string> = []
              for (const [name, j] of Object.entries(made))
                if (Option.isSome(yield* jobs.get(owner, j.id))) out.push(name)
              return out
            })
            // Oldest first: the failed job finished a second before the completed one.
            expect(yield* purge(1)).toBe(1)
            expect(yield* left).toEqual(["completed", "young", "running", "queued", "paused", "media"])
            expect(yield* store.items(made.failed.id)).toEqual([])
            expect(yield* purge(10)).toBe(1)
            expect(yield* purge(10)).toBe(0)
            expect(yield* left).toEqual(["young", "running", "queued", "paused", "media"])
            expect((yield* store.counts([made.completed.id, made.young.id])).size).toBe(1)
            expect(yield* store.items(made.young.id)).toHaveLength(2)
          })
      )
    })
  })
