import { describe, expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { type ImportItem, ImportStore } from "../Imports/ImportStore.js"
import { JobStore } from "../Jobs/JobStore.js"
import { Transactor } from "../Shared/Transactor.js"
import { item, job, type JobCases, scope, uuid } from "./JobsFixtures.js"

/** Import records: stored with their job, marked applied or failed, counted, purged with their job. */
export const importStoreCases: JobCases = (it, suite) => {
  const { insert } = suite
  describe("import records", () => {
    it.effect("markAppliedMany marks each record with its own outcome and id, skipping applied ones", () =>
      Effect.gen(function* () {
        const store = yield* ImportStore
        const owner = job(scope())
        yield* insert(owner)
        yield* store.insertItems([0, 1, 2, 3].map((index) => item(owner.id, index)))
        const [a, b, c] = [uuid(), uuid(), uuid()]
        expect(yield* store.markApplied(owner.id, 2, { outcome: "created", recordId: c, run: 1, at: "t1" })).toBe(true)
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
              body: JSON.parse(`{"external_id":"p","__proto__":{"price":"1"}}`) as ImportItem["body"]
            }
          ])
          const [back] = yield* store.items(other.id)
          expect(Object.keys(back!.body)).toEqual(["external_id", "__proto__"])
          const recordId = uuid()
          expect(yield* store.markApplied(owner.id, 0, { outcome: "created", recordId, run: 1, at: "t1" })).toBe(true)
          expect(yield* store.markApplied(owner.id, 0, { outcome: "updated", recordId, run: 1, at: "t2" })).toBe(false)
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
}
