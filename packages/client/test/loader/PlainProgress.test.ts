import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { plainProgress } from "../../src/loader/PlainProgress.js"
import { Progress, type Snapshot } from "../../src/loader/Progress.js"
import { prop } from "../properties.js"

const order = ["media", "categories", "brands", "products"] as const

/** A load of `totals` sent one resource after another at `perSecond` records a second, sampled every second. */
const simulate = (totals: Readonly<Record<string, number>>, perSecond: number): Array<Snapshot> => {
  const progress = new Progress(0, false)
  for (const resource of order) progress.setTotal(resource, totals[resource]!)
  const snapshots: Array<Snapshot> = [progress.snapshot(0)]
  let now = 0
  for (const resource of order) {
    progress.start(resource)
    for (let left = totals[resource]!; left > 0; left -= perSecond) {
      now += 1000
      progress.add(resource, { created: Math.min(perSecond, left) }, now)
      snapshots.push(progress.snapshot(now))
    }
  }
  progress.setPhase("finished")
  snapshots.push(progress.snapshot(now))
  return snapshots
}

const linesOf = (snapshots: ReadonlyArray<Snapshot>, everyMs?: number) => {
  const render = plainProgress(everyMs === undefined ? {} : { everyMs })
  return snapshots.flatMap((snapshot) => render(snapshot))
}

describe("plain progress lines", () => {
  it("say nothing of a resource before it starts: a line when it starts, one when it is done", () => {
    const lines = linesOf(simulate({ media: 4, categories: 30, brands: 3, products: 200 }, 40))
    expect(lines).toEqual([
      "media: done, 4/4: 4 created, 0 updated, 0 unchanged, 0 failed",
      "categories: done, 30/30: 30 created, 0 updated, 0 unchanged, 0 failed",
      "brands: done, 3/3: 3 created, 0 updated, 0 unchanged, 0 failed",
      "products: started, 40/200 done",
      "products: done, 200/200: 200 created, 0 updated, 0 unchanged, 0 failed"
    ])
  })

  it("update a long resource at most once per interval, with no ETA while there is no rate", () => {
    const lines = linesOf(simulate({ media: 1, categories: 1, brands: 1, products: 6000 }, 100))
    const products = lines.filter((line) => line.startsWith("products"))
    // 60 s of products: the start, an update every 10 s after it (5), the end.
    expect(products).toHaveLength(1 + 5 + 1)
    expect(products[1]).toBe("products: 1100/6000 (18%), 100.0 records/s, ETA 49s, 0 failed")
    expect(lines.some((line) => line.includes("ETA ?"))).toBe(false)
  })

  it("a resumed resource starts with what was done before", () => {
    const progress = new Progress(0, false)
    progress.setTotal("products", 200)
    progress.restore("products", { created: 150 })
    const render = plainProgress()
    expect(render(progress.snapshot(0))).toEqual([])
    progress.start("products")
    expect(render(progress.snapshot(1000))).toEqual(["products: started, 150/200 done"])
  })

  prop(
    "whatever the pace: no line before a resource starts, at most one per interval after the first, one final line",
    [
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 9000 })),
        {
          maxLength: 80
        }
      ),
      fc.integer({ min: 1000, max: 20_000 })
    ],
    ([steps, everyMs]) => {
      const progress = new Progress(0, false)
      for (const resource of order) progress.setTotal(resource, 100)
      const render = plainProgress({ everyMs })
      const started = new Set<string>()
      const seen = new Map<string, Array<{ at: number; line: string }>>()
      let now = 0
      for (const [pick, count, wait] of steps) {
        const resource = order[pick]!
        if (!started.has(resource) && count % 3 === 0) {
          progress.start(resource)
          started.add(resource)
        }
        if (started.has(resource)) {
          const done = progress.snapshot(now).resources.find((r) => r.resource === resource)!.done
          progress.add(resource, { created: Math.min(count, 100 - done) }, now)
        }
        now += wait
        for (const line of render(progress.snapshot(now))) {
          const name = line.slice(0, line.indexOf(":"))
          expect(started.has(name)).toBe(true)
          seen.set(name, [...(seen.get(name) ?? []), { at: now, line }])
        }
      }
      for (const [resource, lines] of seen) {
        const done = lines.filter((l) => l.line.includes(": done,"))
        expect(done.length).toBeLessThanOrEqual(1)
        if (done.length === 1) expect(lines.at(-1)).toBe(done[0])
        // Updates (every line but the first and the final) keep the interval.
        const updates = lines.slice(1).filter((l) => !l.line.includes(": done,"))
        const times = [lines[0]!.at, ...updates.map((l) => l.at)]
        for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(everyMs)
        const total = progress.snapshot(now).resources.find((r) => r.resource === resource)!
        expect(done.length).toBe(total.done >= total.total ? 1 : 0)
      }
    }
  )
})
