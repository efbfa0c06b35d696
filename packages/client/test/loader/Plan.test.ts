import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Stream } from "effect"
import * as fc from "fast-check"
import { batches, batchKey, type InputRecord, maxRecords, recordBytes } from "../../src/loader/Batch.js"
import { at, deferred } from "../../src/loader/DryRun.js"
import { predecessor } from "../../src/loader/Jobs.js"
import { categoryLevels, groupTiers, plan, resources } from "../../src/loader/Order.js"
import { Progress } from "../../src/loader/Progress.js"
import { recordPath } from "../../src/loader/Report.js"
import { spacing } from "../../src/Pacer.js"
import { prop } from "../properties.js"

const record = (line: number, body: Record<string, unknown>): InputRecord => ({
  position: { file: "in.jsonl", line },
  resource: "products",
  body,
  json: JSON.stringify(body)
})

const bodies = fc.array(
  fc.record({ external_id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.string({ maxLength: 3000 }) }),
  { maxLength: 400 }
)
const collect = <A>(stream: Stream.Stream<A>) =>
  Effect.runSync(Stream.runCollect(stream).pipe(Effect.map((out) => Array.from(out))))

describe("ordering", () => {
  prop(
    "a category's level is its parent's plus one; categories whose parent is not in the load are at 0",
    [fc.array(fc.nat(30), { minLength: 1, maxLength: 60 })],
    ([parentPicks]) => {
      // Category i may have a parent among 0..i-1 (a forest), or one outside the load.
      const parents = new Map<string, string | undefined>(
        parentPicks.map((pick, i) => [
          `c${i}`,
          pick % 3 === 0 || i === 0 ? (pick % 2 === 0 ? undefined : "elsewhere") : `c${pick % i}`
        ])
      )
      const levels = categoryLevels(parents)
      for (const [id, parent] of parents) {
        expect(levels.get(id)).toBe(parent === undefined || !parents.has(parent) ? 0 : levels.get(parent)! + 1)
      }
    }
  )

  it("cuts a cycle instead of looping", () => {
    const levels = categoryLevels(
      new Map([
        ["a", "b"],
        ["b", "a"],
        ["c", "a"]
      ])
    )
    expect(new Set(levels.values()).size).toBeGreaterThan(0)
    expect(levels.size).toBe(3)
  })

  it("sends customization data, categories by level, brands, collections, then single products before bundles", () => {
    expect(plan(new Set(resources), 2, true).map((t) => `${t.resource}#${t.level}`)).toEqual([
      "customization-types#0",
      "customization-groups#0",
      "customization-options#0",
      "categories#0",
      "categories#1",
      "brands#0",
      "collections#0",
      "products#0",
      "products#1"
    ])
    expect(plan(new Set(["products", "categories"] as const), 0, false)).toEqual([
      { resource: "categories", level: 0 },
      { resource: "products", level: 0 }
    ])
  })

  prop(
    "groups of tiers keep the order and share a batch only when they fit in one",
    [fc.array(fc.nat(80), { maxLength: 12 }), fc.integer({ min: 1, max: 50 })],
    ([sizes, size]) => {
      const tiers = sizes.map((_, level) => ({ resource: "categories" as const, level }))
      const groups = groupTiers(tiers, (t) => sizes[t.level]!, size)
      expect(groups.flat()).toEqual(tiers)
      for (const group of groups)
        if (group.length > 1) expect(group.reduce((sum, t) => sum + sizes[t.level]!, 0)).toBeLessThanOrEqual(size)
    }
  )
})

describe("batches and their keys", () => {
  prop(
    "hold at most 50 records and 1 MB, in input order, all of them",
    [bodies, fc.integer({ min: 1, max: 50 })],
    ([list, size]) => {
      const records = list.map((body, i) => record(i + 1, body))
      const out = collect(batches(Stream.fromIterable(records), "products", { size, bytes: 200_000 }))
      expect(out.flatMap((b) => b.records)).toEqual(records)
      for (const batch of out) {
        expect(batch.records.length).toBeLessThanOrEqual(Math.min(size, maxRecords))
        expect(batch.records.reduce((sum, r) => sum + recordBytes(r), 0)).toBeLessThanOrEqual(200_000)
        expect(batch.key).toMatch(/^[A-Za-z0-9._:-]{8,120}$/)
      }
      expect(out.map((b) => b.seq)).toEqual(out.map((_, i) => i))
    }
  )

  prop(
    "the same input gives the same keys; another content, position or salt another key for that batch only",
    [
      fc.array(
        fc.record({ external_id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.string({ maxLength: 20 }) }),
        { minLength: 61, maxLength: 200 }
      ),
      fc.nat()
    ],
    ([list, pick]) => {
      const records = list.map((body, i) => record(i + 1, body))
      const keys = (input: ReadonlyArray<InputRecord>, salt?: string) =>
        collect(batches(Stream.fromIterable(input), "products", salt === undefined ? {} : { salt })).map((b) => b.key)
      const first = keys(records)
      expect(keys(records)).toEqual(first)
      const changed = pick % records.length
      const edited = records.map((r, i) =>
        i === changed ? record(r.position.line, { ...r.body, name: `${String(r.body.name)}!` }) : r
      )
      const after = keys(edited)
      expect(after.filter((key, i) => key !== first[i]).length).toBe(1)
      expect(batchKey("products", [records[0]!])).not.toBe(
        batchKey("products", [{ ...records[0]!, position: { file: "in.jsonl", line: 999 } }])
      )
      expect(new Set([...keys(records, "retry-1"), ...first]).size).toBe(first.length * 2)
    }
  )
})

describe("job polling", () => {
  const hex = fc.stringMatching(/^[0-9a-f]{32}$/)
  const uuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  prop("the cursor below a job id is the id just before it", [hex], ([h]) => {
    const before = predecessor(uuid(h))
    if (/^0+$/.test(h)) return expect(before).toBeUndefined()
    expect(BigInt(`0x${before!.replace(/-/g, "")}`)).toBe(BigInt(`0x${h}`) - 1n)
    expect(before! < uuid(h)).toBe(true)
  })
})

describe("pacing", () => {
  prop(
    "never faster than the limit over a window; spends what is left evenly; waits for the reset when nothing is left",
    [fc.integer({ min: 5, max: 10_000 }), fc.nat(10_000), fc.integer({ min: 1, max: 60_000 })],
    ([limit, remaining, millisToReset]) => {
      const base = { limit, windowMillis: 60_000, margin: 2 }
      const steady = spacing(base)
      expect(steady).toBeCloseTo(60_000 / (limit - 2))
      const adaptive = spacing({ ...base, remaining: Math.min(remaining, limit), millisToReset })
      expect(adaptive).toBeGreaterThanOrEqual(steady)
      if (Math.min(remaining, limit) <= 2) expect(adaptive).toBe(Math.max(steady, millisToReset))
      else expect(adaptive).toBeCloseTo(Math.max(steady, millisToReset / (Math.min(remaining, limit) - 1)))
    }
  )
})

describe("dry run", () => {
  const declared = new Map([
    ["categories", new Set(["sofas"])],
    ["media", new Set(["a.jpg"])]
  ])
  const body = {
    external_id: "p",
    category_ids: [{ external_id: "sofas" }, { external_id: "gone" }],
    cover_id: { external_id: "a.jpg" }
  }
  const failure = (...paths: Array<string>) => ({
    code: "unresolved_reference",
    details: paths.map((path) => ({ path, message: "unresolved" }))
  })

  it("defers a record whose unresolved references all name records of the load, and only those", () => {
    expect(
      deferred(body, failure("$.records[4].body.category_ids[0]", "$.records[4].body.cover_id"), declared, recordPath)
    ).toBe(true)
    expect(deferred(body, failure("$.records[4].body.category_ids[1]"), declared, recordPath)).toBe(false)
    expect(deferred(body, { code: "validation_failed", details: [] }, declared, recordPath)).toBe(false)
    expect(at({ fields: [{ group_ids: ["x", { external_id: "g" }] }] }, "$.fields[0].group_ids[1]")).toEqual({
      value: { external_id: "g" },
      field: "group_ids"
    })
  })
})

describe("progress", () => {
  it("rates records over the last seconds and gives the time left at that rate", () => {
    const progress = new Progress(0, false)
    progress.setTotal("products", 1000)
    progress.restore("products", { created: 100 })
    progress.add("products", { created: 0 }, 1_000)
    progress.add("products", { created: 150, failed: 50 }, 3_000)
    const [p] = progress.snapshot(5_000).resources
    expect(p).toMatchObject({ resource: "products", total: 1000, done: 300, failed: 50 })
    expect(p!.rate).toBeCloseTo(200 / 4)
    expect(p!.eta).toBeCloseTo(700 / 50)
    expect(Duration.toMillis(Duration.seconds(p!.eta!))).toBeGreaterThan(0)
  })
})
