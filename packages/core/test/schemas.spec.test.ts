/**
 * Cases where the upsert body schemas disagree with the contract or with the strict-decoding promise
 * ("every failure is listed"). Each test states the contract side; they fail until src follows it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { Decode, Resource } from "@catalog-sync/core"

type ResourceName = Resource.ResourceName

const decode = (resource: ResourceName, body: unknown) =>
  Effect.runSync(Effect.either(Decode.decodeUpsert(resource, body)))

const decodeValid = (resource: ResourceName, body: unknown) =>
  Either.getOrElse(decode(resource, body), (error) =>
    expect.fail(`${resource} body refused: ${JSON.stringify(error.issues)}`)
  )

const refusedPaths = (resource: ResourceName, body: unknown): ReadonlyArray<string> => {
  const result = decode(resource, body)
  if (Either.isRight(result)) return expect.fail(`${resource} body accepted`)
  return result.left.issues.map((issue) => issue.path)
}

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""))

/** Strings of 1..max characters (code points), astral ones included: each is 1 or 2 UTF-16 units. */
const characters = (max: number) =>
  fc.oneof(
    fc.string({ unit: fc.fullUnicode(), minLength: 1, maxLength: max }),
    fc.integer({ min: 1, max }).map((n) => "🛋".repeat(n))
  )

describe("schema / contract disagreements", () => {
  // Decode.decodeStrict: "every failure is listed"; brief 3: several violations at once are all reported.
  it.prop(
    "category_ids over 50 items that also holds a bad item reports the count, and the item when within the 50",
    [fc.integer({ min: 51, max: 55 }).chain((length) => fc.tuple(fc.constant(length), fc.nat(length - 1)))],
    ([[length, badAt]]) => {
      const u = "123e4567-e89b-12d3-a456-426614174000"
      const ids = Array.from({ length }, (_, i) => (i === badAt ? "abc" : u))
      const paths = refusedPaths("products", { external_id: "e", category_ids: ids })
      // Items past the limit are not decoded.
      if (badAt < 50) expect(paths).toContain(`$.category_ids[${badAt}]`)
      else expect(paths).not.toContain(`$.category_ids[${badAt}]`)
      expect(paths).toContain("$.category_ids")
    },
    { fastCheck: { numRuns: 10, endOnFailure: true } }
  )

  // Spec 2.4 details: "width, height, depth, weight, volume (each a non-negative decimal string or null)";
  // spec 8 sets no limit; we bound them at 16 integer digits and 6 decimals (docs/spec-gaps.md).
  it.prop(
    "details dimensions accept non-negative decimal strings up to 16 digits and 6 decimals",
    [
      fc
        .tuple(digits(1, 16), fc.option(digits(1, 6), { nil: undefined }))
        .map(([i, f]) => (f === undefined ? i : `${i}.${f}`))
    ],
    ([value]) => {
      const details = { width: value, height: value, depth: value, weight: value, volume: value }
      expect(decodeValid("products", { external_id: "e", details })).toStrictEqual({ external_id: "e", details })
    },
    { fastCheck: { numRuns: 200, endOnFailure: true, examples: [["0.1234"], ["12345678901"]] } }
  )

  // Spec 2.2 / 2.3 / 8: "external_id (string, 1-200 chars)", "product name 200 chars", "sku 100 chars".
  // Characters, not UTF-16 code units (the OpenAPI 3.1 maxLength counts code points as well).
  it.prop(
    "lengths are counted in characters, not UTF-16 code units",
    [characters(200), characters(100)],
    ([text200, text100]) => {
      decodeValid("products", {
        external_id: text200,
        name: text200,
        sku: text100,
        collection_id: { external_id: text200 }
      })
    },
    { fastCheck: { numRuns: 100, endOnFailure: true, examples: [["🛋".repeat(200), "🛋".repeat(100)]] } }
  )
})

describe("well-formed text", () => {
  it("refuses lone surrogates, which cannot be stored or returned as UTF-8", () => {
    for (const external_id of ["\ud800", "a\udbffb", "\udc00"]) {
      const result = Effect.runSync(Effect.either(Decode.decodeUpsert("categories", { external_id, name: "C" })))
      expect(result._tag).toBe("Left")
    }
    const ok = Effect.runSync(Effect.either(Decode.decodeUpsert("categories", { external_id: "🛋 sofa", name: "C" })))
    expect(ok._tag).toBe("Right")
  })
})
