import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { Decode, PlainIssues, Resource, Resources } from "@catalog-sync/core"
import * as BoundedDecode from "../src/internal/Shared/BoundedDecode.js"
import { fromSchema, prop } from "./properties.js"

type Json = unknown

const schemaOf = (resource: Resource.ResourceName) =>
  Resources.definitions[resource].body as unknown as Schema.Decoder<unknown>

/** What Effect's `errors: "all"` reports: every failure of the body, however many. */
const allIssues = (resource: Resource.ResourceName, input: Json) => {
  const decoded = Schema.decodeUnknownResult(schemaOf(resource), { errors: "all", onExcessProperty: "error" })(input)
  return Result.isFailure(decoded) ? PlainIssues.plainIssues(decoded.failure) : []
}

const boundedIssues = (resource: Resource.ResourceName, input: Json) =>
  Result.match(BoundedDecode.boundedDecoder(schemaOf(resource))(input), {
    onFailure: (issues) => issues,
    onSuccess: () => []
  })

const key = (issue: PlainIssues.PlainIssue) => `${issue.path} ${issue.message}`
const paths = (issues: ReadonlyArray<PlainIssues.PlainIssue>) => new Set(issues.map((issue) => issue.path))

/** `value` with `replacement` at a path chosen by `choices` (objects and lists entered at random). */
const mutate = (value: Json, choices: ReadonlyArray<number>, replacement: Json, unknownKey: string): Json => {
  const [choice, ...rest] = choices
  if (choice === undefined) return replacement
  if (Array.isArray(value) && value.length > 0) {
    const i = choice % value.length
    return value.map((item, j) => (j === i ? mutate(item, rest, replacement, unknownKey) : item))
  }
  if (typeof value === "object" && value !== null) {
    const keys = [...Object.keys(value), unknownKey]
    const chosen = keys[choice % keys.length]!
    return { ...value, [chosen]: mutate((value as Record<string, Json>)[chosen], rest, replacement, unknownKey) }
  }
  return replacement
}

/** Valid bodies of `resource` with a few values replaced by any JSON, some at keys the schema does not know. */
const mutatedBodies = (resource: Resource.ResourceName) =>
  fc
    .tuple(
      fromSchema(schemaOf(resource)),
      fc.array(
        fc.tuple(fc.array(fc.nat(), { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom("x", "colour")),
        { minLength: 1, maxLength: 4 }
      )
    )
    .map(([body, changes]) =>
      changes.reduce<Json>(
        (out, [choices, replacement, unknownKey]) => mutate(out, choices, replacement, unknownKey),
        body
      )
    )

/** Whether a list of `input` is over a limit of `resource`'s body (a case of its own below). */
const overALimit = (resource: Resource.ResourceName, input: Json) =>
  allIssues(resource, input).some((issue) => /must have (1-50|at most \d+) items/.test(issue.message))

describe("boundedDecoder", () => {
  describe('finds what errors: "all" finds, up to its bound', () => {
    for (const resource of Resource.resourceNames) {
      prop(
        resource,
        [mutatedBodies(resource)],
        ([input]) => {
          if (overALimit(resource, input)) return
          const all = allIssues(resource, input)
          const bounded = boundedIssues(resource, input)
          if (paths(all).size <= BoundedDecode.maxIssues) {
            expect(new Set(bounded.map(key))).toEqual(new Set(all.map(key)))
          } else {
            expect(paths(bounded).size).toBe(BoundedDecode.maxIssues + 1)
            for (const issue of bounded) expect(all.map(key)).toContain(key(issue))
          }
        },
        { fastCheck: { numRuns: resource === "products" ? 150 : 60 } }
      )
    }
  })

  it('decodes a valid body to what errors: "all" decodes it to', () => {
    const body = { external_id: "P", name: "Chair", category_ids: ["0B7C3E1A-5F2D-4C8E-9A61-3D2F4B5C6E7F"] }
    expect(BoundedDecode.boundedDecoder(schemaOf("products"))(body)).toEqual(
      Result.succeed({ ...body, category_ids: ["0b7c3e1a-5f2d-4c8e-9a61-3d2f4b5c6e7f"] })
    )
  })

  it("reports a list over its limit at its path, and decodes only the items within the limit", () => {
    const items = Array.from({ length: 60 }, (_, i) => (i === 3 || i === 55 ? { x: 1 } : { external_id: `c${i}` }))
    const issues = boundedIssues("products", { external_id: "p", category_ids: items, name: 7 })
    expect(issues).toEqual([
      { path: "$.category_ids", message: "must have 1-50 items" },
      { path: "$.name", message: "must be a string" },
      { path: "$.category_ids[3]", message: "must be a string" },
      { path: "$.category_ids[3].x", message: "is not an allowed property" },
      { path: "$.category_ids[3].external_id", message: "is required" }
    ])
    // A list within a list over its limit is cut too: fields over 100, each holding group_ids over 100.
    const field = { name: "n", type_id: { external_id: "t" }, group_ids: Array.from({ length: 150 }, () => 1) }
    const nested = boundedIssues("products", { external_id: "p", fields: Array.from({ length: 101 }, () => field) })
    expect(nested.slice(0, 3)).toEqual([
      { path: "$.fields", message: "must have at most 100 items" },
      { path: "$.fields[0].group_ids", message: "must have at most 100 items" },
      { path: "$.fields[1].group_ids", message: "must have at most 100 items" }
    ])
  })

  it("never echoes a long value, and names a long unknown key by its first 100 characters", () => {
    const long = "k".repeat(10_000)
    const issues = boundedIssues("categories", { external_id: "c", name: ["n".repeat(10_000)], [long]: 1 })
    expect(issues).toEqual([
      { path: `$.${"k".repeat(100)}…`, message: "is not an allowed property" },
      { path: "$.name", message: "must be a string" }
    ])
  })

  it("decodes the worst bodies of a megabyte in milliseconds, listing at most 21 failing locations", () => {
    const many = <A>(n: number, f: (i: number) => A) => Array.from({ length: n }, (_, i) => f(i))
    const keys = (n: number) => Object.fromEntries(many(n, (i) => [`k${i}`, 1]))
    const worst: ReadonlyArray<readonly [string, Json]> = [
      ["95,000 bad references", { external_id: "p", category_ids: many(95_000, () => ({ x: 1 })) }],
      [
        "50,000 valid references over the limit",
        { external_id: "p", media_ids: many(50_000, () => ({ external_id: "m" })) }
      ],
      [
        "10,000 bad references within the limits",
        { external_id: "p", fields: many(100, () => ({ name: "n", type_id: 1, group_ids: many(100, () => "x") })) }
      ],
      ["90,000 unknown keys in 100 fields", { external_id: "p", fields: many(100, () => keys(900)) }],
      [
        "1,000 bad translations in 100 fields",
        { external_id: "p", fields: many(100, () => ({ name: "n", type_id: "x", translations: keys(10) })) }
      ],
      ["a 900 KB name", { external_id: "p", name: "n".repeat(900_000) }]
    ]
    for (const [name, input] of worst) {
      const millis = Math.min(
        ...many(3, () => {
          const started = performance.now()
          const issues = boundedIssues("products", input)
          expect(issues.length, name).toBeGreaterThan(0)
          expect(paths(issues).size, name).toBeLessThanOrEqual(BoundedDecode.maxIssues + 1)
          return performance.now() - started
        })
      )
      expect(millis, name).toBeLessThan(20)
    }
  })

  it("leaves unknown keys alone where they are allowed (the headers of a request)", () => {
    const Headers = Schema.Struct({ "idempotency-key": Schema.String.check(Schema.isMinLength(8)) })
    const decode = BoundedDecode.boundedDecoder(Headers, "ignore")
    expect(Result.isSuccess(decode({ "idempotency-key": "abcdefgh", host: "x" }))).toBe(true)
    expect(decode({ "idempotency-key": "short", host: "x" })).toEqual(
      Result.fail([{ path: "$.idempotency-key", message: expect.any(String) }])
    )
  })

  it("Decode.decodeStrict fails with the bounded issues as ValidationFailed", () => {
    const failed = Decode.decodeUpsert("categories", { external_id: 1 })
    expect(Result.isFailure(failed) && failed.failure.issues).toEqual([
      { path: "$.external_id", message: "must be a string" }
    ])
  })
})
