import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import type { ImportBody, RecordError } from "../src/Imports/Import.js"
import { ImportStore } from "../src/Imports/ImportStore.js"
import { report } from "../src/Imports/Import.js"
import {
  boundedIssueError,
  boundReportErrors,
  jsonBytes,
  reportBounds,
  truncate
} from "../src/internal/Imports/ReportBounds.js"
import { visibleReport } from "../src/internal/Imports/ReportVisibility.js"
import { as } from "./support.js"
import { detail, queued, submit, tenant, TestLayer, work } from "./importSupport.js"

/** 50 records each with `unknown` properties no schema knows: each record fails with one issue per property. */
const noisyImport = (unknown: number, dryRun = false): ImportBody => ({
  ...(dryRun ? { dry_run: true } : {}),
  records: Array.from({ length: 50 }, (_, r) => ({
    resource: "products" as const,
    body: {
      external_id: `p${r}`,
      name: "Chair",
      ...Object.fromEntries(Array.from({ length: unknown }, (_, k) => [`unknown_property_${r}_${k}`, k]))
    }
  }))
})

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8")

layer(TestLayer)("import report bounds", (it) => {
  it.effect(
    "50 records with 1,500 unknown properties each: the stored errors and the report are < 1 MB, each record keeps at most 20 details",
    () =>
      Effect.gen(function* () {
        const who = yield* tenant()
        const job = yield* queued(noisyImport(1500)).pipe(as(who))
        yield* work
        const stored = yield* Effect.flatMap(ImportStore, (store) => store.items(job.id))
        const storedErrors = stored.map((item) => item.error)
        expect(storedErrors.every((error) => error?.code === "validation_failed")).toBe(true)
        expect(bytes(storedErrors)).toBeLessThan(reportBounds.reportBytes + 50 * 512)
        const { job: done, report } = yield* detail(job.id).pipe(as(who))
        expect(done).toMatchObject({ state: "completed", counts: { total: 50, failed: 50 } })
        expect(bytes(report)).toBeLessThan(1024 * 1024)
        // However many issues decoding reports (every one, or the first few), a record keeps at most 20.
        const first = report!.records[0]!.error!
        const details = first.details as ReadonlyArray<{ path: string }>
        expect(details.length).toBeGreaterThan(0)
        expect(details.length).toBeLessThanOrEqual(reportBounds.detailsPerRecord)
        expect(details[0]!.path).toMatch(/^\$\.records\[0\]\.body\.unknown_property_0_\d+$/)
        for (const record of report!.records)
          expect(((record.error!.details as ReadonlyArray<unknown> | undefined) ?? []).length).toBeLessThanOrEqual(
            reportBounds.detailsPerRecord
          )
      })
  )

  it.effect("a dry run's report is bounded the same way", () =>
    Effect.gen(function* () {
      const who = yield* tenant()
      const submitted = yield* submit(noisyImport(1500, true)).pipe(as(who))
      if (submitted._tag !== "DryRun") throw new Error("expected a dry run")
      expect(submitted.report.failed).toBe(50)
      expect(bytes(submitted.report)).toBeLessThan(reportBounds.reportBytes + 50 * 1024)
    })
  )

  it.effect("a long property name, repeated in its path, and a long external_id are cut in the report", () =>
    Effect.gen(function* () {
      const who = yield* tenant()
      const long = "k".repeat(100_000)
      const submitted = yield* submit({
        dry_run: true,
        records: [{ resource: "categories", body: { external_id: "e".repeat(300_000), name: "C", [long]: 1 } }]
      }).pipe(as(who))
      if (submitted._tag !== "DryRun") throw new Error("expected a dry run")
      const [record] = submitted.report.records
      expect(record!.external_id).toBeNull()
      expect(bytes(record)).toBeLessThan(reportBounds.recordBytes)
      const paths = (record!.error!.details as ReadonlyArray<{ path: string }>).map((d) => d.path)
      // The property's name is cut where the issue is made, so its path stays short.
      const unknown = paths.find((path) => path.startsWith("$.records[0].body.kkk"))
      expect(unknown).toMatch(/^\$\.records\[0\]\.body\.k+…$/)
      expect(unknown!.length).toBeLessThanOrEqual(reportBounds.detailChars)
    })
  )

  it.effect("a rule naming 50 problems keeps 20 details, counts the rest, and its message names the first few", () =>
    Effect.gen(function* () {
      const who = yield* tenant()
      // One unresolved reference per category, each named in the rule's message.
      const categories = Array.from({ length: 50 }, (_, i) => ({ external_id: `missing-${"m".repeat(40)}-${i}` }))
      const submitted = yield* submit({
        dry_run: true,
        records: [{ resource: "products", body: { external_id: "p", name: "P", category_ids: categories } }]
      }).pipe(as(who))
      if (submitted._tag !== "DryRun") throw new Error("expected a dry run")
      const error = submitted.report.records[0]!.error!
      expect(error.code).toBe("unresolved_reference")
      expect(error.details).toHaveLength(reportBounds.detailsPerRecord)
      expect(error.details_omitted).toBe(30)
      expect(error.message).toMatch(/^\$\.category_ids\[0\]: .*; and 45 more$/)
      expect(error.message.length).toBeLessThanOrEqual(reportBounds.messageChars)
    })
  )
})

describe("report bounds", () => {
  it("a record's error keeps its first 20 details and counts the rest; past the report's budget, its code alone", () => {
    const issues = Array.from({ length: 1500 }, (_, i) => ({
      path: `$.unknown_${i}`,
      message: "is not an allowed property"
    }))
    const error = boundedIssueError(
      { code: "validation_failed", message: "the body is not valid" },
      issues,
      (issue) => ({
        path: `$.records[0].body${issue.path.slice(1)}`,
        message: issue.message
      })
    )
    expect(error.details).toEqual(
      issues.slice(0, 20).map((issue) => ({ path: `$.records[0].body${issue.path.slice(1)}`, message: issue.message }))
    )
    expect(error.details_omitted).toBe(1480)
    expect(error.message).toBe("the body is not valid")
    const records = Array.from({ length: 50 }, (_, index) => ({ index, error }))
    const bounded = boundReportErrors(records)
    const cut = bounded.filter((record) => record.error.details === undefined)
    expect(cut.length).toBeGreaterThan(0)
    expect(cut[0]!.error).toEqual({
      code: "validation_failed",
      message: expect.stringContaining("its details are left out"),
      details_omitted: 1500
    })
    expect(jsonBytes(bounded.map((record) => record.error))).toBeLessThan(reportBounds.reportBytes + 50 * 300)
  })

  it("a rebuilt message names only what its details say, so the report hides a price from a reader without prices:read", () => {
    const issues = Array.from({ length: 40 }, (_, i) => ({
      path: i % 2 === 0 ? "$.price" : `$.category_ids[${i}]`,
      message: i % 2 === 0 ? `secret-${i} is below the floor` : `references nothing ${"x".repeat(40)}`
    }))
    const error = boundedIssueError(
      { code: "rule_failed", message: issues.map((i) => `${i.path}: ${i.message}`).join("; ") },
      issues,
      (issue) => ({ path: `$.records[0].body${issue.path.slice(1)}`, message: issue.message })
    )
    const result = {
      index: 0,
      resource: "products" as const,
      external_id: "p",
      status: "failed" as const,
      outcome: null,
      id: null,
      error,
      run: 1
    }
    const seen = visibleReport(report(false, 1, [result]), new Set(["catalog:read", "costs:read"]))
    expect(error.message).toContain("secret-0")
    expect(JSON.stringify(seen)).not.toMatch(/secret-/)
  })

  const error = (details: number, chars = 10): RecordError => ({
    code: "validation_failed",
    message: "the body is not valid",
    details: Array.from({ length: details }, (_, i) => ({ path: `$.${"p".repeat(chars)}${i}`, message: "bad" }))
  })

  it("the errors of a report stay within its budget plus a plain error per record past it", () =>
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 50 }), (sizes) => {
        const records = sizes.map((chars, index) => ({ index, error: error(20, chars) }))
        const bounded = boundReportErrors(records)
        const within = bounded.filter((r) => r.error.details !== undefined)
        expect(jsonBytes(within.map((r) => r.error))).toBeLessThanOrEqual(reportBounds.reportBytes + within.length)
        for (const record of bounded.slice(within.length)) {
          expect(record.error.details).toBeUndefined()
          expect(record.error.details_omitted).toBe(20)
        }
        // Kept in order: the budget goes to the first records.
        expect(bounded.map((r) => r.index)).toEqual(records.map((r) => r.index))
        expect(within.map((r) => r.index)).toEqual(records.slice(0, within.length).map((r) => r.index))
      })
    ))

  it("jsonBytes counts UTF-8 bytes of the JSON text, escapes included", () =>
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: "binary" }), (value, text) => {
        expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value) ?? "", "utf8"))
        expect(jsonBytes(text)).toBe(Buffer.byteLength(JSON.stringify(text), "utf8"))
      })
    ))

  it("truncate keeps the limit and never splits a surrogate pair", () =>
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 2, max: 50 }), (text, max) => {
        const cut = truncate(text, max)
        expect(cut.length).toBeLessThanOrEqual(max)
        if (text.length <= max) expect(cut).toBe(text)
        else expect(cut.endsWith("…") && !/[\uD800-\uDBFF]…$/.test(cut)).toBe(true)
      })
    ))
})
