import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { committedReads } from "../src/CommittedReads.js"

describe("committedReads", () => {
  it("answers only at the commit version a value was kept at; any other version empties it", () => {
    const reads = committedReads<string>({ maxBytes: 100, maxEntryBytes: 50, maxEntries: 1000 })
    reads.set("a", "1", "A", 10)
    expect(reads.get("a", "1")).toBe("A")
    expect(reads.get("a", "2")).toBeUndefined()
    // Emptied, not just hidden: back at version 1 nothing is there.
    expect(reads.get("a", "1")).toBeUndefined()
  })

  it("keeps at most maxEntries values, then starts over", () => {
    const reads = committedReads<string>({ maxBytes: 1000, maxEntryBytes: 50, maxEntries: 2 })
    reads.set("a", "1", "A", 1)
    reads.set("b", "1", "B", 1)
    expect([reads.get("a", "1"), reads.get("b", "1")]).toEqual(["A", "B"])
    reads.set("c", "1", "C", 1)
    expect([reads.get("a", "1"), reads.get("b", "1"), reads.get("c", "1")]).toEqual([undefined, undefined, "C"])
  })

  it("keeps no value larger than maxEntryBytes", () => {
    const reads = committedReads<string>({ maxBytes: 100, maxEntryBytes: 50, maxEntries: 1000 })
    reads.set("big", "1", "B", 51)
    expect(reads.get("big", "1")).toBeUndefined()
  })

  it("never holds more than maxBytes, whatever is kept", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ key: fc.string({ maxLength: 3 }), at: fc.integer({ min: 1, max: 3 }), size: fc.nat(60) }),
          {
            maxLength: 200
          }
        ),
        (writes) => {
          const maxBytes = 200
          const reads = committedReads<number>({ maxBytes, maxEntryBytes: 60, maxEntries: 1000 })
          const keys = new Set<string>()
          let at = "0"
          for (const write of writes) {
            reads.set(write.key, String(write.at), write.size, write.size)
            keys.add(write.key)
            at = String(write.at)
            const kept = [...keys].flatMap((key) => reads.get(key, at) ?? [])
            expect(kept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(maxBytes)
            // The last value kept is there, unless too large.
            expect(reads.get(write.key, at)).toBe(write.size <= 60 ? write.size : undefined)
          }
        }
      )
    )
  })
})
