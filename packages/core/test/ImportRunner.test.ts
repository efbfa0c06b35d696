import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import {
  type Attempt,
  dependencyOrder,
  type PlannedRecord,
  runPassesInBatches
} from "../src/internal/Imports/ImportRunner.js"
import { prop } from "./properties.js"

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

/** A category whose parent is `parent` (by external id), as a client sends it. */
const category = (index: number, externalId: string, parent: string | null): PlannedRecord => ({
  index,
  resource: "categories",
  body: { external_id: externalId, name: externalId, parent_id: parent === null ? null : { external_id: parent } }
})

/** An attempt that applies a record once the record its parent names has applied, as the catalog would. */
const resolvingAttempt = (attempts: Array<number>) => {
  const written = new Set<string>()
  return (batch: ReadonlyArray<PlannedRecord>) =>
    Effect.sync(() =>
      batch.map((record): Attempt => {
        attempts.push(record.index)
        const parent = (record.body.parent_id as { external_id: string } | null)?.external_id
        if (parent !== undefined && !written.has(parent)) return unresolved
        written.add(record.body.external_id as string)
        return applied
      })
    )
}

describe("dependencyOrder", () => {
  it.effect(
    "a chain sent in reverse (each record's parent is the next one) applies in one pass, each record tried once",
    () =>
      Effect.gen(function* () {
        const records = Array.from({ length: 50 }, (_, i) => category(i, `c${i}`, i < 49 ? `c${i + 1}` : null))
        const attempts: Array<number> = []
        const { results, passes } = yield* runPassesInBatches(records, 1, resolvingAttempt(attempts))
        expect(passes).toBe(1)
        expect(attempts).toHaveLength(50)
        expect(attempts).toEqual(records.map((r) => r.index).reverse())
        expect([...results.values()].every((r) => r._tag === "Applied")).toBe(true)
      })
  )

  it("keeps the writes of one record in body order, and references wait for the first write only", () => {
    // 0 writes x; 1 (y) references x; 2 writes x again, referencing y: x, y, x again.
    const records = [category(0, "x", null), category(1, "y", "x"), category(2, "x", "y")]
    expect(dependencyOrder([...records].reverse()).map((r) => r.index)).toEqual([0, 1, 2])
    // 0 references 1 before 1 is written, 2 is another write of 0's record: 1, 0, 2.
    const again = [category(0, "a", "b"), category(1, "b", null), category(2, "a", null)]
    expect(dependencyOrder(again).map((r) => r.index)).toEqual([1, 0, 2])
  })

  it("records in a reference cycle come last, in apply order; a body that is not an object is not a reference", () => {
    const records: Array<PlannedRecord> = [
      category(0, "a", "b"),
      category(1, "b", "a"),
      category(2, "c", null),
      { index: 3, resource: "categories", body: { external_id: "d", parent_id: "not-a-reference" } },
      { index: 4, resource: "products", body: { external_id: "p", category_ids: [{ external_id: "c" }, 7, null] } }
    ]
    expect(dependencyOrder(records).map((r) => r.index)).toEqual([2, 3, 4, 0, 1])
  })

  prop(
    "every record comes after the first write of each record of the batch it references (outside cycles)",
    [
      fc.array(fc.nat({ max: 12 }), { minLength: 1, maxLength: 50 }),
      fc.array(fc.option(fc.nat({ max: 12 })), { maxLength: 50 })
    ],
    ([ids, parents]) => {
      const records = ids.map((id, i) => {
        const parent = parents[i]
        // A parent with a smaller id than its child: no cycles.
        return category(i, `c${id}`, parent === undefined || parent === null || parent >= id ? null : `c${parent}`)
      })
      const order = dependencyOrder(records)
      expect(order.map((r) => r.index).sort((a, b) => a - b)).toEqual(records.map((r) => r.index))
      const firstAt = new Map<string, number>()
      order.forEach((record, at) => {
        const key = record.body.external_id as string
        if (!firstAt.has(key)) firstAt.set(key, at)
      })
      order.forEach((record, at) => {
        const parent = (record.body.parent_id as { external_id: string } | null)?.external_id
        if (parent !== undefined && firstAt.has(parent)) expect(firstAt.get(parent)!).toBeLessThan(at)
      })
    }
  )
})

describe("breathe", () => {
  it.effect("a long run of records lets the event loop turn between them", () =>
    Effect.gen(function* () {
      let turnedAt = Number.POSITIVE_INFINITY
      setImmediate(() => (turnedAt = performance.now()))
      const records = Array.from({ length: 40 }, (_, i) => record(i, "brands"))
      yield* runPassesInBatches(records, 1, (batch) =>
        Effect.sync(() => {
          // 2 ms of synchronous work per record: 80 ms in all.
          const until = performance.now() + 2
          while (performance.now() < until);
          return batch.map(() => applied)
        })
      )
      const ended = performance.now()
      // A microtask yield would leave the callback waiting for the whole run.
      expect(turnedAt).toBeLessThan(ended - 40)
    })
  )
})
