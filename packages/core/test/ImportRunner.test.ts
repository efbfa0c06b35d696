import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Attempt, type PlannedRecord, runPassesInBatches } from "../src/internal/Imports/ImportRunner.js"

const record = (index: number, resource: PlannedRecord["resource"]): PlannedRecord => ({ index, resource, body: {} })
const applied: Attempt = { _tag: "Applied", outcome: "created", recordId: "r" }
const unresolved: Attempt = {
  _tag: "Failed",
  error: { index: 0, code: "unresolved_reference", message: "", details: [] } as never,
  unresolved: true
}

describe("runPassesInBatches", () => {
  it.effect(
    "hands each pass's records over in apply order, size at a time, and retries unresolved ones in the next pass",
    () =>
      Effect.gen(function* () {
        const batches: Array<Array<number>> = []
        // Record 0 (a product) resolves only once record 4 (its category) has applied in an earlier batch.
        const seen = new Set<number>()
        const records = [
          record(0, "products"),
          record(1, "products"),
          record(2, "brands"),
          record(3, "products"),
          record(4, "categories")
        ]
        const { results, passes } = yield* runPassesInBatches(records, 2, (batch) =>
          Effect.sync(() => {
            batches.push(batch.map((r) => r.index))
            return batch.map((r) => {
              if (r.index === 0 && !seen.has(4)) return unresolved
              seen.add(r.index)
              return applied
            })
          })
        )
        // Pass 1 in apply order (rank, then index): 2, 4 | 0, 1 | 3; record 0 sees 4 applied already.
        expect(batches).toEqual([[2, 4], [0, 1], [3]])
        expect(passes).toBe(1)
        expect([...results.values()].every((r) => r._tag === "Applied")).toBe(true)
      })
  )

  it.effect("a reference that never resolves fails its record after a pass without progress", () =>
    Effect.gen(function* () {
      const batches: Array<Array<number>> = []
      const { results, passes } = yield* runPassesInBatches([record(0, "products"), record(1, "brands")], 50, (batch) =>
        Effect.sync(() => {
          batches.push(batch.map((r) => r.index))
          return batch.map((r) => (r.index === 0 ? unresolved : applied))
        })
      )
      expect(batches).toEqual([[1, 0], [0]])
      expect(passes).toBe(2)
      expect(results.get(0)).toBe(unresolved)
    })
  )
})
