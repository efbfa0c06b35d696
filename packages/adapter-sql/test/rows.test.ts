import { describe, expect, it } from "@effect/vitest"
import type { StoredRecord } from "@catalog-sync/core"
import fc from "fast-check"
import { Schema } from "effect"
import { padded } from "../src/internal/inList.js"
import { RecordRow, recordRowOf, storedRecordOf } from "../src/internal/rows.js"

const id = fc.uuid({ version: 4 })
const timestamp = fc.date({ min: new Date(2020, 0, 1), max: new Date(2030, 0, 1) }).map((d) => d.toISOString())
const record: fc.Arbitrary<StoredRecord.StoredRecord> = fc.record({
  id,
  companyId: id,
  resource: fc.constantFrom("products", "categories", "customization-options"),
  revision: fc.integer({ min: 1, max: 1_000_000 }),
  // Documents as core stores them: JSON objects ("__proto__" is refused at the edge; see the last case).
  data: fc.dictionary(
    fc.string().filter((key) => key !== "__proto__"),
    fc.jsonValue()
  ),
  index: fc.record({
    active: fc.constantFrom(null, true, false),
    collectionId: fc.option(id, { nil: null }),
    brandId: fc.option(id, { nil: null }),
    parentId: fc.option(id, { nil: null }),
    categoryIds: fc.array(id, { maxLength: 5 }),
    componentIds: fc.array(id, { maxLength: 5 })
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
  archivedAt: fc.option(timestamp, { nil: null })
}) as unknown as fc.Arbitrary<StoredRecord.StoredRecord>

const sample = {
  id: "0a1b2c3d-0000-4000-8000-000000000001",
  companyId: "0a1b2c3d-0000-4000-8000-000000000002",
  resource: "products",
  revision: 1,
  data: {},
  index: { active: true, collectionId: null, brandId: null, parentId: null, categoryIds: [], componentIds: [] },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archivedAt: null
} as unknown as StoredRecord.StoredRecord

/** The row our reads and writes map by hand must be the one the `RecordRow` schema describes. */
describe("catalog record rows mapped without the schema", () => {
  it("recordRowOf encodes as RecordRow does, and storedRecordOf reads back the record it came from", () => {
    fc.assert(
      fc.property(record, (stored) => {
        const row = recordRowOf(stored)
        const decoded = Schema.decodeSync(RecordRow)(row)
        expect(Schema.encodeSync(RecordRow)(decoded)).toEqual(row)
        const read = storedRecordOf(row)
        expect(read).toEqual(JSON.parse(JSON.stringify(stored)))
        expect(read.data).toEqual(decoded.data)
        expect(read.index.active).toBe(decoded.active)
      }),
      { numRuns: 200 }
    )
  })

  it("reads the flag as either engine returns it", () => {
    const row = recordRowOf(sample)
    expect(storedRecordOf({ ...row, active: 1 }).index.active).toBe(true)
    expect(storedRecordOf({ ...row, active: 0 }).index.active).toBe(false)
    expect(storedRecordOf({ ...row, active: true }).index.active).toBe(true)
    expect(storedRecordOf({ ...row, active: null }).index.active).toBe(null)
  })

  it("keeps every key of a document as an own key, where the schema's record turned __proto__ into a prototype", () => {
    const row = { ...recordRowOf(sample), data: '{"__proto__":{"polluted":true},"name":"x"}' }
    const read = storedRecordOf(row)
    expect(Object.keys(read.data)).toEqual(["__proto__", "name"])
    expect(Object.getPrototypeOf(read.data)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe("an IN list padded", () => {
  it("holds the same values, in a power-of-two count below twice theirs", () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (values) => {
        const out = padded(values)
        expect(new Set(out)).toEqual(new Set(values))
        expect(out.slice(0, values.length)).toEqual(values)
        if (values.length > 0) {
          expect(Number.isInteger(Math.log2(out.length))).toBe(true)
          expect(out.length).toBeLessThan(2 * values.length)
        } else expect(out).toEqual([])
      })
    )
  })

  it("makes 1 to 32 values six lengths", () => {
    const lengths = new Set(
      Array.from({ length: 32 }, (_, i) => padded(Array.from({ length: i + 1 }, (_, j) => j)).length)
    )
    expect([...lengths]).toEqual([1, 2, 4, 8, 16, 32])
  })
})
