import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { plainIssues } from "../src/Shared/PlainIssues.js"

const issuesOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input)
  if (Either.isRight(result)) throw new Error("expected a parse error")
  return plainIssues(result.left)
}

const Query = Schema.Struct({
  limit: Schema.optional(
    Schema.NumberFromString.pipe(
      Schema.int(),
      Schema.between(1, 100, { message: () => "must be a whole number from 1 to 100" })
    )
  ),
  mode: Schema.optional(Schema.Literal("catalog", "prices")),
  cursor: Schema.optional(Schema.UUID)
}).annotations({ identifier: "Query" })

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
