import { describe, expect, it } from "@effect/vitest"
import { Product } from "@catalog-sync/contract"
import { Result, Schema } from "effect"
import { fromRaw } from "../src/Errors.js"

const parseError = (input: unknown) => {
  const result = Schema.decodeUnknownResult(Product.ProductUpsert, { errors: "all", onExcessProperty: "error" })(input)
  if (Result.isSuccess(result)) throw new Error("expected a parse error")
  return result.failure
}

describe("client errors", () => {
  it("a request the contract refuses is InvalidRequest with the server's code and one plain detail per field, no schema internals", () => {
    const error = fromRaw(parseError({ external_id: "p", nmae: "Sofa", mode: "bulk", details: { width: 90 } }), {
      sent: false
    })
    expect(error).toMatchObject({ _tag: "InvalidRequest", code: "validation_failed" })
    const details = [...(error as { details: ReadonlyArray<{ path: string; message: string }> }).details].sort((a, b) =>
      a.path.localeCompare(b.path)
    )
    expect(details).toEqual([
      { path: "$.details.width", message: "must be a string or null" },
      { path: "$.mode", message: 'must be "catalog", "prices" or "combined"' },
      { path: "$.nmae", message: "is not an allowed property" }
    ])
    expect(error.message).not.toMatch(/declaration schema|<->|Expected|actual/)
    expect(error.message).toContain("$.nmae is not an allowed property")
  })
})
