import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { UUID } from "../src/Shared/Ids.js"
import { plainIssues } from "../src/Shared/PlainIssues.js"

const issuesOf = (schema: Schema.Decoder<unknown>, input: unknown) => {
  const result = Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "error" })(input)
  if (Result.isSuccess(result)) throw new Error("expected a parse error")
  return plainIssues(result.failure)
}

const Query = Schema.Struct({
  // FiniteFromString refuses "abc" as Effect 3's NumberFromString did (Effect 4's reads it as NaN).
  limit: Schema.optional(
    Schema.FiniteFromString.check(
      Schema.isInt(),
      Schema.isBetween({ minimum: 1, maximum: 100 }, { message: "must be a whole number from 1 to 100" })
    )
  ),
  mode: Schema.optional(Schema.Literals(["catalog", "prices"])),
  cursor: Schema.optional(UUID)
}).annotate({ identifier: "Query" })

describe("plain issues", () => {
  it("one issue per field naming its rule: union members merged, optional's `undefined` and the value sent left out", () => {
    expect(
      new Set(issuesOf(Query, { limit: "5000", mode: "x", cursor: "secret-looking-value", colour: "red" }))
    ).toEqual(
      new Set([
        { path: "$.limit", message: "must be a whole number from 1 to 100" },
        { path: "$.mode", message: 'must be "catalog" or "prices"' },
        { path: "$.cursor", message: "must be a uuid" },
        { path: "$.colour", message: "is not an allowed property" }
      ])
    )
    expect(issuesOf(Query, { limit: "abc" })).toEqual([{ path: "$.limit", message: "must be a number" }])
    expect(
      issuesOf(Schema.Struct({ name: Schema.String, width: Schema.NullOr(Schema.String), on: Schema.Boolean }), {
        width: 5,
        on: "yes"
      })
    ).toEqual([
      { path: "$.name", message: "is required" },
      { path: "$.width", message: "must be a string or null" },
      { path: "$.on", message: "must be true or false" }
    ])
  })

  it("never shows a schema's identifier, a declaration or the value sent", () => {
    const text = JSON.stringify(issuesOf(Query, { limit: "9999999", mode: "<script>", cursor: 7 }))
    expect(text).not.toMatch(/Query|declaration|Expected|actual|9999999|<script>/)
  })
})
