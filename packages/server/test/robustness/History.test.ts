import { describe, expect, it } from "@effect/vitest"
import { type Attempt, checkHistory, type LogicalWrite } from "./History.js"

// The checker must be able to fail: each forged history breaks one promise and is caught.
const ok = (revision: number, name: string, at: number, replayed = false): Attempt => ({
  type: "ok",
  revision,
  name,
  replayed,
  updatedAt: `t${revision}`,
  invokedAt: at,
  completedAt: at + 1
})
const conflict = (current: number, at: number): Attempt => ({
  type: "fail",
  status: 409,
  code: "revision_conflict",
  current,
  invokedAt: at,
  completedAt: at + 1
})
const write = (key: string, expected: number, value: string, attempts: Array<Attempt>): LogicalWrite => ({
  key,
  record: "r",
  expected,
  value,
  attempts
})
const observed = (revision: number, name: string, feed = Array.from({ length: revision }, (_, i) => i + 1)) => ({
  records: new Map([["r", { revision, name, initial: "init" }]]),
  feed: feed.map((r) => ({ id: "r", revision: r }))
})

describe("checkHistory", () => {
  it("accepts a correct history: a chain, a replay, a conflict and an unknown outcome", () => {
    const writes = [
      write("a", 1, "A", [{ type: "unknown", invokedAt: 0 }, ok(2, "A", 5, true)]),
      write("b", 1, "B", [conflict(2, 3)]),
      write("c", 2, "C", [ok(3, "C", 10)]),
      write("d", 3, "D", [{ type: "unknown", invokedAt: 20 }])
    ]
    expect(checkHistory(writes, observed(4, "D")).violations).toEqual([])
    expect(checkHistory(writes, observed(3, "C")).violations).toEqual([])
  })

  it("catches two successes from one expected_revision", () => {
    const writes = [write("a", 1, "A", [ok(2, "A", 0)]), write("b", 1, "B", [ok(2, "B", 1)])]
    expect(checkHistory(writes, observed(2, "B")).violations.join()).toMatch(
      /both acknowledged from expected_revision 1/
    )
  })

  it("catches a lost acknowledged write", () => {
    expect(checkHistory([write("a", 1, "A", [ok(2, "A", 0)])], observed(2, "init")).violations.join()).toMatch(
      /lost write/
    )
    expect(checkHistory([write("a", 1, "A", [ok(2, "A", 0)])], observed(1, "init")).violations.join()).toMatch(
      /the record is at 1/
    )
  })

  it("catches a key executed twice", () => {
    const twice = write("a", 1, "A", [ok(2, "A", 0), conflict(2, 5)])
    expect(checkHistory([twice], observed(2, "A")).violations.join()).toMatch(/executed again/)
    const differing = write("a", 1, "A", [ok(2, "A", 0), { ...ok(2, "A", 5), updatedAt: "later" } as Attempt])
    expect(checkHistory([differing], observed(2, "A")).violations.join()).toMatch(/executed twice/)
  })

  it("catches a feed that skips or repeats a change, and a revision nobody wrote", () => {
    const writes = [write("a", 1, "A", [ok(2, "A", 0)])]
    expect(checkHistory(writes, observed(2, "A", [1, 2, 2])).violations.join()).toMatch(/delivered revisions 1,2,2/)
    expect(checkHistory(writes, observed(2, "A", [2])).violations.join()).toMatch(/delivered revisions 2/)
    expect(checkHistory(writes, observed(3, "X")).violations.join()).toMatch(/revision 3 was produced by no write/)
  })
})
