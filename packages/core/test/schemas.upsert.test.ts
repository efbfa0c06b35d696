/**
 * Property tests of the upsert body schemas against the contract (spec 2.2-2.10 and 8), driven through
 * `Decode.decodeUpsert` exactly as the HTTP layer decodes: valid bodies decode unchanged, each single
 * violation is reported at its JSON path, and several violations are all reported.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Decode, Product, Resource, Resources } from "@catalog-sync/core"

import { fromSchema, prop } from "./properties.js"
type Body = Readonly<Record<string, unknown>>
type ResourceName = Resource.ResourceName

// ---------------------------------------------------------------------------------------------------------
// Valid values

const digits = (min: number, max: number) =>
  fc
    .integer({ min, max })
    .chain((n) => fc.array(fc.constantFrom(..."0123456789"), { minLength: n, maxLength: n }))
    .map((d) => d.join(""))

/** A decimal string with `int` integer digits (1..int) and up to `frac` fraction digits, optionally none. */
const decimal = (int: number, frac: number) =>
  fc
    .tuple(fc.oneof(digits(1, int), digits(int, int)), fc.option(digits(1, frac), { nil: undefined }))
    .map(([i, f]) => (f === undefined ? i : `${i}.${f}`))

const bmpChar = fc.integer({ min: 0x20, max: 0xd7ff }).map((code) => String.fromCharCode(code))

/** Strings of `min..max` UTF-16 units, often at the upper bound, sometimes outside ASCII. */
const text = (min: number, max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, min + 24) }) },
    { weight: 1, arbitrary: fc.string({ unit: bmpChar, minLength: min, maxLength: Math.min(max, min + 24) }) },
    { weight: 1, arbitrary: fc.string({ minLength: Math.max(min, max - 2), maxLength: max }) }
  )

/** A name's characters: no C1 control, line separator or bidi override (CommonFields.Name), sometimes a direction mark. */
const nameChar = fc.oneof(
  { weight: 20, arbitrary: bmpChar.filter((c) => !/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(c)) },
  { weight: 1, arbitrary: fc.constantFrom("\u200e", "\u200f") }
)

/** `text` for names. */
const nameText = (min: number, max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, min + 24) }) },
    { weight: 1, arbitrary: fc.string({ unit: nameChar, minLength: min, maxLength: Math.min(max, min + 24) }) },
    { weight: 1, arbitrary: fc.string({ minLength: Math.max(min, max - 2), maxLength: max }) }
  )

const uuid = fc.uuid()
const externalId = text(1, 200)
const name = nameText(1, 200)
const description = text(0, 4000)
const money = decimal(16, 2)
const dimension = decimal(10, 3)
const coefficient = fc
  .tuple(fc.constantFrom("", "0", "00"), fc.integer({ min: 0, max: 100 }), fc.option(digits(1, 4), { nil: undefined }))
  .filter(([, i, f]) => (i === 0 ? f !== undefined && /[1-9]/.test(f) : i < 100 || f === undefined || /^0+$/.test(f)))
  .map(([zeros, i, f]) => `${zeros}${i}${f === undefined ? "" : `.${f}`}`)
const currency = fc.stringMatching(/^[A-Z]{3}$/)
const languageCode = fc.constantFrom("en", "de", "fr", "it", "pt-BR", "zh-Hans", "fil")
const nullable = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null, freq: 4 })

/** A list of `min..max` items: usually short, sometimes exactly at the limit. */
const list = <A>(arb: fc.Arbitrary<A>, min: number, max: number, light: fc.Arbitrary<A> = arb) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(arb, { minLength: min, maxLength: Math.min(max, min + 4) }) },
    { weight: 1, arbitrary: fc.array(light, { minLength: max, maxLength: max }) }
  )

const reference = fc.oneof(uuid, fc.record({ external_id: externalId }))
const lightReference = fc.oneof(uuid, fc.record({ external_id: text(1, 8) }))

const translationEntry = fc.record({ name, description }, { requiredKeys: [] })
const translations = fc.dictionary(languageCode, translationEntry, { maxKeys: 3, noNullPrototype: true })

const common = {
  external_id: externalId,
  target_id: uuid,
  expected_revision: fc.oneof(fc.constant(0), fc.nat(), fc.maxSafeNat()),
  mode: fc.constantFrom("catalog", "prices", "combined"),
  currency,
  translations
}

const component = fc.record({
  product_id: reference,
  quantity: fc.oneof(fc.constantFrom(1, 10000), fc.integer({ min: 1, max: 10000 }))
})
const lightComponent = fc.record({ product_id: lightReference, quantity: fc.integer({ min: 1, max: 10000 }) })

const selectionFieldOf = (groups: fc.Arbitrary<ReadonlyArray<unknown>>) =>
  fc.record(
    { id: uuid, external_id: externalId, name, translations, type_id: reference, group_ids: groups, coefficient },
    { requiredKeys: ["name", "type_id"] }
  )
const selectionField = selectionFieldOf(list(reference, 0, 100, lightReference))
const lightSelectionField = fc.record(
  {
    external_id: fc.string({ minLength: 1, maxLength: 8 }),
    name: fc.string({ minLength: 1, maxLength: 8 }),
    type_id: lightReference
  },
  { requiredKeys: ["name", "type_id"] }
)

const details = fc.record(
  {
    description,
    width: nullable(dimension),
    height: nullable(dimension),
    depth: nullable(dimension),
    weight: nullable(dimension),
    volume: nullable(dimension)
  },
  { requiredKeys: [] }
)

const validBodies: Record<ResourceName, fc.Arbitrary<Body>> = {
  products: fc.record(
    {
      ...common,
      name,
      sku: text(0, 100),
      kind: fc.constantFrom("single", "bundle"),
      active: fc.boolean(),
      category_ids: list(reference, 1, 50, lightReference),
      collection_id: nullable(reference),
      brand_id: nullable(reference),
      details,
      unit: fc.constantFrom("piece", "metre", "sqm", "cbm"),
      components: list(component, 0, 100, lightComponent),
      media_ids: list(reference, 0, 50, lightReference),
      cover_id: nullable(reference),
      fields: list(selectionField, 0, 100, lightSelectionField),
      price: money,
      market_price: nullable(money),
      cost: nullable(money),
      tax_rate: nullable(money)
    },
    { requiredKeys: ["external_id"] }
  ),
  categories: fc.record(
    { ...common, name, parent_id: nullable(reference), description, image_id: nullable(reference) },
    { requiredKeys: ["external_id"] }
  ),
  collections: fc.record(
    { ...common, name, description, image_id: nullable(reference) },
    { requiredKeys: ["external_id"] }
  ),
  brands: fc.record({ ...common, name, description, image_id: nullable(reference) }, { requiredKeys: ["external_id"] }),
  "customization-types": fc.record(
    { ...common, name, pricing_scope: fc.constantFrom("group", "option"), archived: fc.boolean() },
    { requiredKeys: ["external_id"] }
  ),
  "customization-groups": fc.record(
    {
      ...common,
      name,
      type_id: reference,
      active: fc.boolean(),
      photo_enabled: fc.boolean(),
      pricing_mode: fc.constantFrom("none", "percent", "fixed"),
      pricing_value: money
    },
    { requiredKeys: ["external_id"] }
  ),
  "customization-options": fc.record(
    {
      ...common,
      name,
      group_id: reference,
      code: text(0, 100),
      active: fc.boolean(),
      media_id: nullable(reference),
      pricing_mode: fc.constantFrom("none", "percent", "fixed"),
      pricing_value: money
    },
    { requiredKeys: ["external_id"] }
  )
}

// ---------------------------------------------------------------------------------------------------------
// Violations. An Edit changes one value and says where the violation is, relative to that value: `sub` is
// the path that must be reported, `within` the location every reported issue must stay inside (a union
// such as Reference also reports its other members at the Reference itself).

/** Returned by an edit to remove the key instead of setting it. */
const ABSENT: unique symbol = Symbol("absent")

interface Edit {
  readonly label: string
  readonly sub: string
  readonly within: string
  readonly edit: (value: unknown) => unknown
}

interface Mutation {
  readonly label: string
  readonly key: string
  readonly path: string
  readonly within: string
  readonly apply: (body: Body) => Body
}

const knownKeys = new Set([
  ...Object.keys(common),
  ...["name", "sku", "kind", "active", "category_ids", "collection_id", "brand_id", "details", "unit", "components"],
  ...["media_ids", "cover_id", "fields", "price", "market_price", "cost", "tax_rate", "parent_id", "description"],
  ...["image_id", "pricing_scope", "archived", "type_id", "photo_enabled", "pricing_mode", "pricing_value"],
  ...["group_id", "code", "media_id", "width", "height", "depth", "weight", "volume", "product_id", "quantity"],
  ...["id", "group_ids", "coefficient"]
])
const unknownKey = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/).filter((key) => !knownKeys.has(key))

const replaceWith = (label: string, values: fc.Arbitrary<unknown>): fc.Arbitrary<Edit> =>
  values.map((value) => ({
    label: `${label} ${JSON.stringify(value)?.slice(0, 40)}`,
    sub: "",
    within: "",
    edit: () => value
  }))

const removed: fc.Arbitrary<Edit> = fc.constant({ label: "missing", sub: "", within: "", edit: () => ABSENT })

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

/** An unknown key added to an object (the object is created when it was absent). */
const extraKey: fc.Arbitrary<Edit> = unknownKey.map((key) => ({
  label: `unknown key ${key}`,
  sub: `.${key}`,
  within: `.${key}`,
  edit: (value) => ({ ...asObject(value), [key]: 1 })
}))

const setKey = (target: unknown, key: string, value: unknown): Record<string, unknown> => {
  const { [key]: _, ...rest } = asObject(target)
  return value === ABSENT ? rest : { ...rest, [key]: value }
}

/** The edit applied to key `key` of an object value. */
const atKey = (key: string, edits: fc.Arbitrary<Edit>): fc.Arbitrary<Edit> =>
  edits.map((e) => ({
    label: `${key}: ${e.label}`,
    sub: `.${key}${e.sub}`,
    within: `.${key}${e.within}`,
    edit: (value) => setKey(value, key, e.edit(asObject(value)[key]))
  }))

/** Replaces an array value by a valid list with the edit applied to one of its items. */
const atItem = (items: fc.Arbitrary<ReadonlyArray<unknown>>, edits: fc.Arbitrary<Edit>): fc.Arbitrary<Edit> =>
  fc
    .tuple(
      items.filter((xs) => xs.length > 0),
      fc.nat(),
      edits
    )
    .map(([xs, n, e]) => {
      const i = n % xs.length
      return {
        label: `[${i}] ${e.label}`,
        sub: `[${i}]${e.sub}`,
        within: `[${i}]${e.within}`,
        edit: () => xs.map((x, j) => (j === i ? e.edit(x) : x))
      }
    })

/** A Reference broken in one way: not a uuid, a bad object form, or the wrong type. */
const badReference: fc.Arbitrary<Edit> = fc.oneof(
  replaceWith(
    "non-uuid string",
    fc.oneof(
      fc.constantFrom("abc", "", "123e4567-e89b-12d3-a456-42661417400", "{external_id}"),
      fc.string().filter((s) => !/^[0-9a-f-]{36}$/i.test(s))
    )
  ),
  replaceWith("wrong type", fc.constantFrom(42, true, [], ["123e4567-e89b-12d3-a456-426614174000"])),
  fc.tuple(externalId, unknownKey).map(([id, key]) => ({
    label: `{external_id, ${key}}`,
    sub: `.${key}`,
    within: "",
    edit: () => ({ external_id: id, [key]: "x" })
  })),
  fc.constantFrom("", "x".repeat(201)).map((id) => ({
    label: `{external_id: ${id.length} chars}`,
    sub: ".external_id",
    within: "",
    edit: () => ({ external_id: id })
  })),
  fc.constant({ label: "{} without external_id", sub: ".external_id", within: "", edit: () => ({}) })
)
const badRequiredReference = fc.oneof(badReference, replaceWith("null", fc.constant(null)))

const badMoney = replaceWith(
  "bad money",
  fc.oneof(
    fc.constantFrom(
      "1.234",
      "-1",
      "1e3",
      "1".repeat(17),
      "12345678901234567.5",
      "1.",
      ".5",
      " 1",
      "1 ",
      "1\n",
      "1,00",
      "",
      "+1",
      "0x10",
      "１",
      "NaN"
    ),
    money.map((m) => `-${m}`),
    fc
      .tuple(digits(17, 24), fc.option(digits(1, 2), { nil: undefined }))
      .map(([i, f]) => (f === undefined ? i : `${i}.${f}`)),
    fc.tuple(digits(1, 16), digits(3, 6)).map(([i, f]) => `${i}.${f}`),
    fc.constantFrom(12.5, 0, 1299, true, ["1.00"])
  )
)
const badCoefficient = replaceWith(
  "bad coefficient",
  fc.oneof(
    fc.constantFrom(
      "0",
      "0.0",
      "0.0000",
      "000",
      "100.0001",
      "101",
      "1.12345",
      "-1",
      "abc",
      "",
      "1e2",
      ".5",
      "1.",
      " 1"
    ),
    fc.integer({ min: 101, max: 1_000_000_000 }).map(String),
    fc
      .tuple(fc.integer({ min: 100, max: 999 }), digits(1, 4))
      .filter(([i, f]) => i > 100 || /[1-9]/.test(f))
      .map(([i, f]) => `${i}.${f}`),
    fc.constantFrom(1, 0.3, null)
  )
)
const badDimension = replaceWith(
  "bad dimension",
  fc.constantFrom("-1", "abc", "1e3", "1,5", "", " 1", 1.5, 0, true, [])
)
const tooLong = (max: number) =>
  replaceWith(`more than ${max} chars`, fc.string({ minLength: max + 1, maxLength: max + 40 }))
const notString = replaceWith("not a string", fc.constantFrom(42, true, null, {}, []))
const badName = fc.oneof(
  tooLong(200),
  replaceWith("empty", fc.constant("")),
  notString,
  replaceWith(
    "a control character or a bidi override",
    fc
      .tuple(fc.string({ maxLength: 8 }), fc.constantFrom("\n", "\u001b", "\u0085", "\u2028", "\u202e", "\u2067"))
      .map(([text, c]) => `${text}${c}`)
  )
)
const badExternalId = fc.oneof(tooLong(200), replaceWith("empty", fc.constant("")), notString, removed)
const badBoolean = replaceWith("not a boolean", fc.constantFrom("true", 1, 0, null, "false"))
const badEnum = (valid: ReadonlyArray<string>) =>
  replaceWith(
    "not in enum",
    fc.oneof(
      fc.constantFrom(null, 1, "", ...valid.map((v) => v.toUpperCase()), ...valid.map((v) => `${v} `)),
      fc.string().filter((s) => !valid.includes(s))
    )
  )
const badList = replaceWith("not an array", fc.constantFrom("x", 1, null, {}, true))

/** The edit applied to the entry of one language of a translations object. */
const atLanguage = (edits: fc.Arbitrary<Edit>): fc.Arbitrary<Edit> =>
  fc.tuple(languageCode, edits).map(([lang, e]) => ({
    label: `${lang} ${e.label}`,
    sub: `.${lang}${e.sub}`,
    within: `.${lang}${e.within}`,
    edit: (value: unknown) => setKey(value, lang, e.edit(asObject(value)[lang]))
  }))

const badTranslations: fc.Arbitrary<Edit> = fc.oneof(
  replaceWith("not an object", fc.constantFrom("en", 1, null, [])),
  atLanguage(extraKey),
  atLanguage(
    fc.oneof(atKey("name", fc.oneof(tooLong(200), notString)), atKey("description", fc.oneof(tooLong(4000), notString)))
  ),
  atLanguage(replaceWith("entry not an object", fc.constantFrom("Sofa", 1, [])))
)

const top = (key: string, edits: fc.Arbitrary<Edit>): fc.Arbitrary<Mutation> =>
  atKey(key, edits).map((e) => ({
    label: e.label,
    key,
    path: `$${e.sub}`,
    within: `$${e.within}`,
    apply: (body) => e.edit(body) as Body
  }))

const unknownTopLevel: fc.Arbitrary<Mutation> = unknownKey.map((key) => ({
  label: `unknown top-level key ${key}`,
  key,
  path: `$.${key}`,
  within: `$.${key}`,
  apply: (body) => ({ ...body, [key]: "x" })
}))

const commonMutations = [
  top("external_id", badExternalId),
  top(
    "target_id",
    fc.oneof(
      badReference.filter((e) => e.sub === ""),
      replaceWith("null", fc.constant(null)),
      replaceWith("object", fc.constant({ external_id: "x" }))
    )
  ),
  top(
    "expected_revision",
    replaceWith(
      "not a non-negative integer",
      fc.oneof(
        fc.constantFrom(-1, 1.5, "1", null, true, -0.5),
        fc.integer({ max: -1 }),
        fc.double({ min: 0, max: 1e9, noNaN: true }).filter((x) => !Number.isInteger(x))
      )
    )
  ),
  top("mode", badEnum(["catalog", "prices", "combined"])),
  top("currency", replaceWith("bad currency", fc.constantFrom("eur", "EURO", "EU", "", 978, null))),
  top("translations", badTranslations),
  top("name", badName),
  unknownTopLevel
]

const componentEdits = fc.oneof(
  atKey(
    "quantity",
    replaceWith(
      "bad quantity",
      fc.oneof(fc.constantFrom(0, 10001, 2.5, -1, "2", null), fc.integer({ min: 10001 }), fc.integer({ max: 0 }))
    )
  ),
  atKey("quantity", removed),
  atKey("product_id", fc.oneof(badRequiredReference, removed)),
  extraKey,
  replaceWith("not an object", fc.constantFrom("x", null, 1))
)

const fieldEdits = fc.oneof(
  atKey("name", badName),
  atKey("type_id", badRequiredReference),
  atKey("coefficient", badCoefficient),
  atKey(
    "group_ids",
    fc.oneof(replaceWith("101 items", fc.array(lightReference, { minLength: 101, maxLength: 101 })), badList)
  ),
  atKey("group_ids", atItem(fc.array(reference, { minLength: 1, maxLength: 4 }), badRequiredReference)),
  atKey("external_id", fc.oneof(tooLong(200), replaceWith("empty", fc.constant("")), notString)),
  atKey("id", replaceWith("not a uuid", fc.constantFrom("abc", 1, null, { external_id: "x" }))),
  atKey("translations", badTranslations),
  extraKey
)

/**
 * A field entry without its name or type_id, in catalog or combined mode (a prices-mode entry only names
 * the field whose coefficient it sets). The body's mode decides, so this rule is checked on the whole body
 * once the rest of it is valid: it is reported as a single violation, never among several.
 */
const fieldKeyMissing: fc.Arbitrary<Mutation> = fc
  .tuple(
    top(
      "fields",
      atItem(
        fc.array(selectionFieldOf(fc.array(reference, { maxLength: 3 })), { minLength: 1, maxLength: 4 }),
        fc.oneof(atKey("name", removed), atKey("type_id", removed))
      )
    ),
    fc.constantFrom("catalog", "combined", undefined)
  )
  .map(([mutation, mode]) => ({
    ...mutation,
    label: `${mutation.label} (mode ${mode ?? "omitted"})`,
    apply: (body) => {
      const { mode: _, ...rest } = mutation.apply(body)
      return mode === undefined ? rest : { ...rest, mode }
    }
  }))

const mutations: Record<ResourceName, ReadonlyArray<fc.Arbitrary<Mutation>>> = {
  products: [
    ...commonMutations,
    top("sku", fc.oneof(tooLong(100), notString)),
    top("kind", badEnum(["single", "bundle"])),
    top("unit", badEnum(["piece", "metre", "sqm", "cbm"])),
    top("active", badBoolean),
    top(
      "category_ids",
      fc.oneof(
        replaceWith("empty", fc.constant([])),
        replaceWith("51 items", fc.array(lightReference, { minLength: 51, maxLength: 51 })),
        badList,
        atItem(list(reference, 1, 50, lightReference), badRequiredReference)
      )
    ),
    top("collection_id", badReference),
    top("brand_id", badReference),
    top("cover_id", badReference),
    top(
      "details",
      fc.oneof(
        extraKey,
        atKey("description", fc.oneof(tooLong(4000), notString)),
        fc.constantFrom("width", "height", "depth", "weight", "volume").chain((key) => atKey(key, badDimension)),
        replaceWith("not an object", fc.constantFrom(null, "x", [], 1))
      )
    ),
    top(
      "components",
      fc.oneof(
        replaceWith("101 items", fc.array(lightComponent, { minLength: 101, maxLength: 101 })),
        badList,
        atItem(fc.array(component, { minLength: 1, maxLength: 5 }), componentEdits)
      )
    ),
    top(
      "media_ids",
      fc.oneof(
        replaceWith("51 items", fc.array(lightReference, { minLength: 51, maxLength: 51 })),
        badList,
        atItem(fc.array(reference, { minLength: 1, maxLength: 5 }), badRequiredReference)
      )
    ),
    top(
      "fields",
      fc.oneof(
        replaceWith("101 items", fc.array(lightSelectionField, { minLength: 101, maxLength: 101 })),
        badList,
        atItem(
          fc.array(selectionFieldOf(fc.array(reference, { maxLength: 3 })), { minLength: 1, maxLength: 4 }),
          fieldEdits
        )
      )
    ),
    top("price", fc.oneof(badMoney, replaceWith("null", fc.constant(null)))),
    top("market_price", badMoney),
    top("cost", badMoney),
    top("tax_rate", badMoney)
  ],
  categories: [
    ...commonMutations,
    top("parent_id", badReference),
    top("image_id", badReference),
    top("description", fc.oneof(tooLong(4000), notString))
  ],
  collections: [
    ...commonMutations,
    top("description", fc.oneof(tooLong(4000), notString)),
    top("image_id", badReference)
  ],
  brands: [...commonMutations, top("description", fc.oneof(tooLong(4000), notString)), top("image_id", badReference)],
  "customization-types": [
    ...commonMutations,
    top("pricing_scope", badEnum(["group", "option"])),
    top("archived", badBoolean)
  ],
  "customization-groups": [
    ...commonMutations,
    top("type_id", badRequiredReference),
    top("active", badBoolean),
    top("photo_enabled", badBoolean),
    top("pricing_mode", badEnum(["none", "percent", "fixed"])),
    top("pricing_value", fc.oneof(badMoney, replaceWith("null", fc.constant(null))))
  ],
  "customization-options": [
    ...commonMutations,
    top("group_id", badRequiredReference),
    top("code", fc.oneof(tooLong(100), notString)),
    top("active", badBoolean),
    top("media_id", badReference),
    top("pricing_mode", badEnum(["none", "percent", "fixed"])),
    top("pricing_value", fc.oneof(badMoney, replaceWith("null", fc.constant(null))))
  ]
}

const isWithin = (path: string, location: string) =>
  path === location || path.startsWith(`${location}.`) || path.startsWith(`${location}[`)

const resources = Resource.resourceNames

const decode = (resource: ResourceName, body: unknown) => Decode.decodeUpsert(resource, body)

/** Decodes a body that must be valid; a failure shows its issues. */
const decodeValid = (resource: ResourceName, body: unknown) =>
  Result.getOrElse(decode(resource, body), (error) =>
    expect.fail(`${resource} body refused: ${JSON.stringify(error.issues)}`)
  )

/** Decodes a body that must be refused; returns the reported issue paths. */
const refusedPaths = (resource: ResourceName, body: unknown): ReadonlyArray<string> => {
  const result = decode(resource, body)
  if (Result.isSuccess(result)) return expect.fail(`${resource} body accepted: ${JSON.stringify(body)?.slice(0, 300)}`)
  expect(result.failure._tag).toBe("ValidationFailed")
  return result.failure.issues.map((issue) => issue.path)
}

// ---------------------------------------------------------------------------------------------------------

describe("upsert body schemas", () => {
  describe("valid bodies decode, unchanged", () => {
    for (const resource of resources) {
      prop(
        `${resource}: hand-written valid bodies`,
        [validBodies[resource]],
        ([body]) => {
          expect(decodeValid(resource, body)).toStrictEqual(body)
        },
        { fastCheck: { numRuns: 100 } }
      )

      prop(
        `${resource}: Arbitrary.schema(schema) bodies`,
        [fromSchema(Resources.definitions[resource].body) as fc.Arbitrary<Body>],
        ([body]) => {
          decodeValid(resource, body)
        },
        { fastCheck: { numRuns: 50 } }
      )
    }
  })

  describe("a single violation is rejected at its JSON path", () => {
    for (const resource of resources) {
      prop(
        resource,
        [
          validBodies[resource],
          fc.oneof(...mutations[resource], ...(resource === "products" ? [fieldKeyMissing] : []))
        ],
        ([body, mutation]) => {
          const paths = refusedPaths(resource, mutation.apply(body))
          expect(paths, mutation.label).toContain(mutation.path)
          for (const path of paths) expect(isWithin(path, mutation.within), `${mutation.label}: ${path}`).toBe(true)
        },
        { fastCheck: { numRuns: resource === "products" ? 250 : 150 } }
      )
    }
  })

  describe("each violation listed in the contract is reported at its path", () => {
    const u = "123e4567-e89b-12d3-a456-426614174000"
    const field = { name: "Main fabric", type_id: u }
    const cases: ReadonlyArray<readonly [ResourceName, string, Body, string]> = [
      ...resources.flatMap((r) => [
        [r, "external_id of 201 chars", { external_id: "x".repeat(201) }, "$.external_id"] as const,
        [r, "empty external_id", { external_id: "" }, "$.external_id"] as const,
        [r, "missing external_id", { name: "n" }, "$.external_id"] as const,
        [r, "name of 201 chars", { external_id: "e", name: "x".repeat(201) }, "$.name"] as const,
        [r, "null name", { external_id: "e", name: null }, "$.name"] as const,
        [r, "expected_revision -1", { external_id: "e", expected_revision: -1 }, "$.expected_revision"] as const,
        [r, "expected_revision 1.5", { external_id: "e", expected_revision: 1.5 }, "$.expected_revision"] as const,
        [r, "mode draft", { external_id: "e", mode: "draft" }, "$.mode"] as const,
        [r, "currency eur", { external_id: "e", currency: "eur" }, "$.currency"] as const,
        [r, "unknown top-level key", { external_id: "e", company_id: u }, "$.company_id"] as const,
        [
          r,
          "unknown key in a translation",
          { external_id: "e", translations: { de: { name: "n", x: 1 } } },
          "$.translations.de.x"
        ] as const
      ]),
      ["products", "sku of 101 chars", { external_id: "e", sku: "x".repeat(101) }, "$.sku"],
      ["products", "null sku", { external_id: "e", sku: null }, "$.sku"],
      [
        "products",
        "details.description of 4001 chars",
        { external_id: "e", details: { description: "x".repeat(4001) } },
        "$.details.description"
      ],
      [
        "products",
        "unknown key in details",
        { external_id: "e", details: { width: "1", colour: "red" } },
        "$.details.colour"
      ],
      ["products", "negative width", { external_id: "e", details: { width: "-1" } }, "$.details.width"],
      [
        "products",
        "quantity 0",
        { external_id: "e", components: [{ product_id: u, quantity: 0 }] },
        "$.components[0].quantity"
      ],
      [
        "products",
        "quantity 10001",
        { external_id: "e", components: [{ product_id: u, quantity: 10001 }] },
        "$.components[0].quantity"
      ],
      [
        "products",
        "quantity 2.5",
        { external_id: "e", components: [{ product_id: u, quantity: 2.5 }] },
        "$.components[0].quantity"
      ],
      [
        "products",
        "component without quantity",
        { external_id: "e", components: [{ product_id: u }] },
        "$.components[0].quantity"
      ],
      [
        "products",
        "unknown key in a component",
        { external_id: "e", components: [{ product_id: u, quantity: 1, x: 1 }] },
        "$.components[0].x"
      ],
      [
        "products",
        "101 components",
        { external_id: "e", components: Array.from({ length: 101 }, () => ({ product_id: u, quantity: 1 })) },
        "$.components"
      ],
      ...["1.234", "-1", "1e3", "1".repeat(17), "12345678901234567.00", "1.", ".5", "1,00", "1\n"].map(
        (price) => ["products", `price ${JSON.stringify(price)}`, { external_id: "e", price }, "$.price"] as const
      ),
      ["products", "price as a number", { external_id: "e", price: 12.5 }, "$.price"],
      ["products", "null price", { external_id: "e", price: null }, "$.price"],
      ["products", "cost 1.234", { external_id: "e", cost: "1.234" }, "$.cost"],
      ["products", "market_price -1", { external_id: "e", market_price: "-1" }, "$.market_price"],
      ["products", "tax_rate 1e3", { external_id: "e", tax_rate: "1e3" }, "$.tax_rate"],
      ...["0", "0.0000", "100.0001", "1.12345", "-1", "1e2"].map(
        (coefficient) =>
          [
            "products",
            `coefficient ${coefficient}`,
            { external_id: "e", fields: [field, { ...field, coefficient }] },
            "$.fields[1].coefficient"
          ] as const
      ),
      ["products", "no category", { external_id: "e", category_ids: [] }, "$.category_ids"],
      [
        "products",
        "51 categories",
        { external_id: "e", category_ids: Array.from({ length: 51 }, () => u) },
        "$.category_ids"
      ],
      ["products", "51 media", { external_id: "e", media_ids: Array.from({ length: 51 }, () => u) }, "$.media_ids"],
      ["products", "101 fields", { external_id: "e", fields: Array.from({ length: 101 }, () => field) }, "$.fields"],
      [
        "products",
        "101 group_ids",
        { external_id: "e", fields: [{ ...field, group_ids: Array.from({ length: 101 }, () => u) }] },
        "$.fields[0].group_ids"
      ],
      ["products", "unknown key in a field", { external_id: "e", fields: [{ ...field, x: 1 }] }, "$.fields[0].x"],
      ["products", "field without type_id", { external_id: "e", fields: [{ name: "n" }] }, "$.fields[0].type_id"],
      [
        "products",
        "field external_id of 201 chars",
        { external_id: "e", fields: [{ ...field, external_id: "x".repeat(201) }] },
        "$.fields[0].external_id"
      ],
      [
        "products",
        "{external_id, x} Reference",
        { external_id: "e", collection_id: { external_id: "c", x: 1 } },
        "$.collection_id.x"
      ],
      [
        "products",
        "{external_id: ''} Reference",
        { external_id: "e", cover_id: { external_id: "" } },
        "$.cover_id.external_id"
      ],
      ["products", "non-uuid Reference", { external_id: "e", brand_id: "brand-1" }, "$.brand_id"],
      [
        "products",
        "non-uuid Reference in a list",
        { external_id: "e", category_ids: [u, "cat-1"] },
        "$.category_ids[1]"
      ],
      ["products", "kind kit", { external_id: "e", kind: "kit" }, "$.kind"],
      ["products", "unit kg", { external_id: "e", unit: "kg" }, "$.unit"],
      ["categories", "parent_id not a uuid", { external_id: "e", parent_id: "root" }, "$.parent_id"],
      ["categories", "description of 4001 chars", { external_id: "e", description: "x".repeat(4001) }, "$.description"],
      [
        "collections",
        "image_id {external_id, x}",
        { external_id: "e", image_id: { external_id: "i", x: 1 } },
        "$.image_id.x"
      ],
      ["brands", "image_id a number", { external_id: "e", image_id: 7 }, "$.image_id"],
      ["customization-types", "pricing_scope both", { external_id: "e", pricing_scope: "both" }, "$.pricing_scope"],
      [
        "customization-groups",
        "pricing_mode percentage",
        { external_id: "e", pricing_mode: "percentage" },
        "$.pricing_mode"
      ],
      ["customization-groups", "pricing_value 1.234", { external_id: "e", pricing_value: "1.234" }, "$.pricing_value"],
      ["customization-groups", "null type_id", { external_id: "e", type_id: null }, "$.type_id"],
      ["customization-groups", "type_id not a uuid", { external_id: "e", type_id: "fabric" }, "$.type_id"],
      ["customization-options", "code of 101 chars", { external_id: "e", code: "x".repeat(101) }, "$.code"],
      ["customization-options", "pricing_mode FIXED", { external_id: "e", pricing_mode: "FIXED" }, "$.pricing_mode"],
      ["customization-options", "null pricing_value", { external_id: "e", pricing_value: null }, "$.pricing_value"],
      ["customization-options", "group_id {x}", { external_id: "e", group_id: { x: "g" } }, "$.group_id.x"]
    ]
    for (const [resource, label, body, path] of cases) {
      it(`${resource}: ${label} -> ${path}`, () => {
        expect(refusedPaths(resource, body)).toContain(path)
      })
    }

    it("products: a prices-mode field entry names its field by id or external_id and carries only its coefficient", () => {
      const u = "123e4567-e89b-12d3-a456-426614174000"
      const body = {
        external_id: "e",
        mode: "prices",
        fields: [
          { external_id: "seat", coefficient: "0.3" },
          { id: u, coefficient: "2" }
        ]
      }
      expect(Result.isSuccess(decode("products", body))).toBe(true)
      expect(refusedPaths("products", { ...body, mode: "catalog" })).toEqual([
        "$.fields[0].name",
        "$.fields[0].type_id",
        "$.fields[1].name",
        "$.fields[1].type_id"
      ])
      expect(
        refusedPaths("products", { external_id: "e", fields: [{ external_id: "seat", coefficient: "0.3" }] })
      ).toEqual(["$.fields[0].name", "$.fields[0].type_id"])
    })
  })

  describe("several violations are all reported", () => {
    for (const resource of resources) {
      prop(
        resource,
        [
          validBodies[resource],
          fc.uniqueArray(fc.oneof(...mutations[resource]), { minLength: 2, maxLength: 5, selector: (m) => m.key })
        ],
        ([body, several]) => {
          const paths = refusedPaths(
            resource,
            several.reduce((b, m) => m.apply(b), body)
          )
          for (const m of several) expect(paths, m.label).toContain(m.path)
          for (const path of paths)
            expect(
              several.some((m) => isWithin(path, m.within)),
              path
            ).toBe(true)
        },
        { fastCheck: { numRuns: resource === "products" ? 100 : 60 } }
      )
    }
  })

  // The items past the limit are not decoded: a list is checked against its limit before its items.
  describe("a list over its limit that also holds bad items reports the count and every bad item within the limit", () => {
    const u = "123e4567-e89b-12d3-a456-426614174000"
    const lists: ReadonlyArray<
      readonly [string, number, unknown, unknown, string, (body: ReadonlyArray<unknown>) => Body, string]
    > = [
      ["media_ids", 50, u, "abc", "", (xs) => ({ external_id: "e", media_ids: xs }), "$.media_ids"],
      [
        "components",
        100,
        { product_id: u, quantity: 1 },
        { product_id: u, quantity: 0 },
        ".quantity",
        (xs) => ({ external_id: "e", components: xs }),
        "$.components"
      ],
      [
        "fields",
        100,
        { name: "n", type_id: u },
        { name: "", type_id: u },
        ".name",
        (xs) => ({ external_id: "e", fields: xs }),
        "$.fields"
      ],
      [
        "group_ids",
        100,
        u,
        { external_id: "" },
        ".external_id",
        (xs) => ({ external_id: "e", fields: [{ name: "n", type_id: u, group_ids: xs }] }),
        "$.fields[0].group_ids"
      ]
    ]
    for (const [label, limit, good, bad, sub, build, path] of lists) {
      prop(
        label,
        [
          fc
            .integer({ min: 1, max: 5 })
            .chain((extra) =>
              fc.tuple(
                fc.constant(limit + extra),
                fc.uniqueArray(fc.nat(limit + extra - 1), { minLength: 1, maxLength: 3 })
              )
            )
        ],
        ([[length, badAt]]) => {
          const paths = refusedPaths(
            "products",
            build(Array.from({ length }, (_, i) => (badAt.includes(i) ? bad : good)))
          )
          expect(paths).toContain(path)
          for (const i of badAt) {
            if (i < limit) expect(paths).toContain(`${path}[${i}]${sub}`)
            else expect(paths.some((p) => p.startsWith(`${path}[${i}]`))).toBe(false)
          }
        },
        { fastCheck: { numRuns: 20 } }
      )
    }
  })

  describe("money is never parsed into a number", () => {
    it("a 16-digit price round-trips exactly through decoding and normalising", () => {
      const body = {
        external_id: "p",
        price: "9999999999999999.99",
        market_price: "9999999999999999",
        cost: "0.01",
        tax_rate: "1234567890123456.7"
      }
      expect(String(Number(body.price))).not.toBe(body.price)
      const decoded = decodeValid("products", body)
      expect(decoded).toStrictEqual(body)
      expect(JSON.parse(JSON.stringify(decoded))).toStrictEqual(body)
      expect(Product.definition.normalize({ ...Product.definition.defaults, ...decoded })).toMatchObject({
        price: "9999999999999999.99",
        market_price: "9999999999999999.00",
        cost: "0.01",
        tax_rate: "1234567890123456.70"
      })
    })

    prop(
      "every money string keeps its digits in products, groups and options",
      [decimal(16, 2)],
      ([value]) => {
        expect(decodeValid("products", { external_id: "p", price: value, cost: value })).toMatchObject({
          price: value,
          cost: value
        })
        for (const resource of ["customization-groups", "customization-options"] as const) {
          expect(decodeValid(resource, { external_id: "x", pricing_value: value }).pricing_value).toBe(value)
        }
      },
      { fastCheck: { numRuns: 200 } }
    )
  })
})
