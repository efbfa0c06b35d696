/**
 * Cases where the upsert body schemas disagree with the contract or with the strict-decoding promise
 * ("every failure is listed"). Each test states the contract side; they fail until src follows it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, Result, Schema } from "effect"
import * as fc from "fast-check"
import { CommonFields, Decode, Inventory, Media, PlainIssues, type Resource } from "@catalog-sync/core"
import { nulMessage } from "../src/internal/Shared/Text.js"
import { prop } from "./properties.js"

type ResourceName = Resource.ResourceName

const decode = (resource: ResourceName, body: unknown) => Decode.decodeUpsert(resource, body)

const decodeValid = (resource: ResourceName, body: unknown) =>
  Result.getOrElse(decode(resource, body), (error) =>
    expect.fail(`${resource} body refused: ${JSON.stringify(error.issues)}`)
  )

const refusedPaths = (resource: ResourceName, body: unknown): ReadonlyArray<string> => {
  const result = decode(resource, body)
  if (Result.isSuccess(result)) return expect.fail(`${resource} body accepted`)
  return result.failure.issues.map((issue) => issue.path)
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
  prop(
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
  prop(
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
  prop(
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

const id = "123e4567-e89b-12d3-a456-426614174000"

/** Every text field of the upsert bodies (References included), with a body that holds `text` there. */
const textFields: ReadonlyArray<readonly [ResourceName, string, (text: string) => Record<string, unknown>]> = [
  ["categories", "$.external_id", (text) => ({ external_id: text })],
  ["categories", "$.name", (text) => ({ external_id: "e", name: text })],
  ["categories", "$.description", (text) => ({ external_id: "e", description: text })],
  ["categories", "$.parent_id.external_id", (text) => ({ external_id: "e", parent_id: { external_id: text } })],
  ["categories", "$.translations.de.name", (text) => ({ external_id: "e", translations: { de: { name: text } } })],
  [
    "categories",
    "$.translations.de.description",
    (text) => ({ external_id: "e", translations: { de: { description: text } } })
  ],
  ["products", "$.sku", (text) => ({ external_id: "e", sku: text })],
  ["products", "$.details.description", (text) => ({ external_id: "e", details: { description: text } })],
  [
    "products",
    "$.category_ids[0].external_id",
    (text) => ({ external_id: "e", category_ids: [{ external_id: text }] })
  ],
  ["products", "$.media_ids[0].external_id", (text) => ({ external_id: "e", media_ids: [{ external_id: text }] })],
  [
    "products",
    "$.components[0].product_id.external_id",
    (text) => ({ external_id: "e", components: [{ product_id: { external_id: text }, quantity: 1 }] })
  ],
  [
    "products",
    "$.fields[0].external_id",
    (text) => ({ external_id: "e", mode: "prices", fields: [{ external_id: text, coefficient: "1.5" }] })
  ],
  ["products", "$.fields[0].name", (text) => ({ external_id: "e", fields: [{ name: text, type_id: id }] })],
  ["collections", "$.name", (text) => ({ external_id: "e", name: text })],
  ["brands", "$.description", (text) => ({ external_id: "e", description: text })],
  ["customization-types", "$.name", (text) => ({ external_id: "e", name: text })],
  ["customization-groups", "$.type_id.external_id", (text) => ({ external_id: "e", type_id: { external_id: text } })],
  ["customization-options", "$.code", (text) => ({ external_id: "e", code: text })]
]

const issuesOf = (resource: ResourceName, body: unknown) => {
  const result = decode(resource, body)
  return Result.isFailure(result) ? result.failure.issues : []
}

describe("well-formed text", () => {
  // PostgreSQL text cannot hold U+0000 (SQLite can): refused alike on both engines, at the field's path.
  prop(
    "U+0000 is refused in every text field and Reference at that field's path, and the same text without it is accepted",
    [fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 })],
    ([before, after]) => {
      for (const [resource, path, body] of textFields) {
        const issues = issuesOf(resource, body(`${before}\u0000${after}`))
        expect([resource, issues]).toEqual([resource, expect.arrayContaining([{ path, message: nulMessage }])])
        // Nothing else fails (a Reference's union also names its uuid form, at the Reference's own path).
        expect([resource, issues.filter((issue) => !path.startsWith(issue.path))]).toEqual([resource, []])
        const clean = `${before}${after}`.replaceAll("\u0000", "") || "x"
        expect([resource, path, issuesOf(resource, body(clean))]).toEqual([resource, path, []])
      }
    },
    { fastCheck: { numRuns: 50, endOnFailure: true } }
  )

  it("U+0000 is refused in a stock write's note and source_id and in the media form's fields", () => {
    const stock = {
      event_id: id,
      source_kind: "product",
      source_id: { external_id: "p" },
      location_id: id,
      action: "set",
      quantity: "1",
      revision: 0,
      note: "count"
    }
    const pathsOf = (schema: Schema.Decoder<unknown>, input: unknown) =>
      Result.match(Schema.decodeUnknownResult(schema, { errors: "all" })(input), {
        onFailure: (error) => PlainIssues.plainIssues(error),
        onSuccess: () => []
      })
    expect(pathsOf(Inventory.StockWrite, { ...stock, note: "a\u0000" })).toEqual([
      { path: "$.note", message: nulMessage }
    ])
    expect(pathsOf(Inventory.StockWrite, { ...stock, source_id: { external_id: "\u0000" } })).toContainEqual({
      path: "$.source_id.external_id",
      message: nulMessage
    })
    expect(pathsOf(Media.MediaFields, { external_id: "a\u0000", name: "\u0000b" })).toEqual([
      { path: "$.external_id", message: nulMessage },
      { path: "$.name", message: nulMessage }
    ])
    expect(pathsOf(Inventory.StockWrite, stock)).toEqual([])
  })

  it("refuses lone surrogates, which cannot be stored or returned as UTF-8", () => {
    for (const external_id of ["\ud800", "a\udbffb", "\udc00"]) {
      const result = Decode.decodeUpsert("categories", { external_id, name: "C" })
      expect(result._tag).toBe("Failure")
    }
    const ok = Decode.decodeUpsert("categories", { external_id: "🛋 sofa", name: "C" })
    expect(ok._tag).toBe("Success")
  })
})

/** Every name of the upsert bodies: the record's, its translations', a selection field's and its translations'. */
const nameFields: ReadonlyArray<readonly [ResourceName, string, (text: string) => Record<string, unknown>]> = [
  ...(
    [
      "categories",
      "products",
      "collections",
      "brands",
      "customization-types",
      "customization-groups",
      "customization-options"
    ] as const
  ).map((resource) => [resource, "$.name", (text: string) => ({ external_id: "e", name: text })] as const),
  ["products", "$.translations.de.name", (text) => ({ external_id: "e", translations: { de: { name: text } } })],
  ["products", "$.fields[0].name", (text) => ({ external_id: "e", fields: [{ name: text, type_id: id }] })],
  [
    "products",
    "$.fields[0].translations.de.name",
    (text) => ({ external_id: "e", fields: [{ name: "F", type_id: id, translations: { de: { name: text } } }] })
  ]
]

describe("names", () => {
  // C0 and C1 controls, line and paragraph separators, bidi embeddings, overrides and isolates.
  const refused = [
    ..."\u0001\u0009\u000a\u000d\u001b\u001f\u007f\u0080\u0085\u009f\u2028\u2029",
    ..."\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
  ]
  prop(
    "a control or bidi override character is refused in every name at its path; the name without it, or with a direction mark, is accepted",
    [fc.string({ maxLength: 20 }), fc.constantFrom(...refused), fc.string({ maxLength: 20 })],
    ([before, character, after]) => {
      for (const [resource, path, body] of nameFields) {
        const issues = issuesOf(resource, body(`${before}${character}${after}`))
        expect([resource, issues]).toEqual([resource, [{ path, message: CommonFields.nameMessage }]])
        for (const clean of [`${before}${after}` || "x", `${before}\u200f${after}\u200e`]) {
          expect([resource, path, issuesOf(resource, body(clean))]).toEqual([resource, path, []])
        }
      }
    },
    { fastCheck: { numRuns: 30, endOnFailure: true } }
  )

  it("descriptions, a sku and external ids keep line breaks and tabs; the media form's name is a name", () => {
    const text = "line one\n\tline two\r\n\u2028"
    const bodies = [
      ["categories", { external_id: text, name: "N", description: text, translations: { de: { description: text } } }],
      ["products", { external_id: "e", name: "N", sku: text, details: { description: text } }]
    ] as const
    for (const [resource, body] of bodies) expect(issuesOf(resource, body)).toEqual([])
    expect(
      Result.getFailure(Schema.decodeUnknownResult(Media.MediaFields)({ external_id: "m", name: "a\u202eb" })).pipe(
        Option.map(PlainIssues.plainIssues)
      )
    ).toEqual(Option.some([{ path: "$.name", message: CommonFields.nameMessage }]))
  })
})
