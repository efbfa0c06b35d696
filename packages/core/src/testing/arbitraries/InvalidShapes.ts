/**
 * Invalid bodies that fail the body schema, each labelled `validation_failed` with the path of the
 * failing field: lengths, patterns, types, enums, item counts, unknown keys at any depth, U+0000 and lone
 * surrogates in text, control characters and bidi overrides in names.
 */
import * as fc from "fast-check"
import type { ResourceName } from "../../Resources/Resource.js"
import type { World } from "../World.js"
import { base, type Body, type InvalidWrite, label, unknownKey, without } from "./Labels.js"
import { reference } from "./ValidBodies.js"
import { languageCode, money, text } from "./Values.js"

/** A character no name may hold (CommonFields.Name): a C0 or C1 control, a line separator, a bidi override. */
const refusedInName = fc.constantFrom("\n", "\t", "\u001b", "\u007f", "\u0085", "\u2028", "\u202e", "\u2066")

/** Bodies that fail the resource's body schema: 422 `validation_failed` at the failing field. */
export const schemaRules = (world: World, resource: ResourceName): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const any = base(world, resource)
  const set = (rule: string, key: string, values: fc.Arbitrary<unknown>, path = `$.${key}`) =>
    fc
      .tuple(any, values)
      .map(([write, value]) => label(resource, rule, "validation_failed", path, { ...write.body, [key]: value }))
  return [
    set("name longer than 200 characters", "name", text(201, 230)),
    set("empty name", "name", fc.constant("")),
    set(
      "name with U+0000",
      "name",
      fc.tuple(text(0, 5), text(0, 5)).map(([a, b]) => `${a}\u0000${b}`)
    ),
    set(
      "name with a lone surrogate",
      "name",
      text(0, 5).map((a) => `${a}\ud800`)
    ),
    set(
      "name with a control character or a bidi override",
      "name",
      fc.tuple(text(0, 5), refusedInName, text(0, 5)).map(([a, c, b]) => `${a}${c}${b}`)
    ),
    set("name not a string", "name", fc.constantFrom(42, true, null, ["Sofa"])),
    set("empty external_id", "external_id", fc.constant("")),
    set("external_id longer than 200 characters", "external_id", text(201, 230)),
    set("expected_revision not a non-negative integer", "expected_revision", fc.constantFrom(-1, 1.5, "1")),
    set("unknown mode", "mode", fc.constantFrom("draft", "CATALOG", "")),
    set("currency not 3 capital letters", "currency", fc.constantFrom("eur", "EURO", "E1R", "")),
    any.map((write) =>
      label(resource, "external_id missing", "validation_failed", "$.external_id", without(write.body, "external_id"))
    ),
    fc
      .tuple(any, unknownKey)
      .map(([write, key]) =>
        label(resource, `unknown key ${key}`, "validation_failed", `$.${key}`, { ...write.body, [key]: "x" })
      ),
    fc
      .tuple(any, languageCode, unknownKey)
      .map(([write, language, key]) =>
        label(
          resource,
          "unknown key in a translation entry",
          "validation_failed",
          `$.translations.${language}.${key}`,
          { ...write.body, translations: { [language]: { [key]: "x" } } }
        )
      ),
    fc
      .tuple(any, languageCode, text(201, 220))
      .map(([write, language, long]) =>
        label(
          resource,
          "translated name longer than 200 characters",
          "validation_failed",
          `$.translations.${language}.name`,
          { ...write.body, translations: { [language]: { name: long } } }
        )
      ),
    fc
      .tuple(any, languageCode, refusedInName)
      .map(([write, language, c]) =>
        label(
          resource,
          "translated name with a control character or a bidi override",
          "validation_failed",
          `$.translations.${language}.name`,
          { ...write.body, translations: { [language]: { name: `x${c}` } } }
        )
      ),
    ...(resource === "products" ? productSchemaRules(world) : []),
    ...(resource === "customization-groups" || resource === "customization-options"
      ? [
          set(
            "pricing_value with 3 decimals",
            "pricing_value",
            money.map((m) => `${m.split(".")[0]}.123`)
          ),
          set("unknown pricing_mode", "pricing_mode", fc.constantFrom("percentage", "FIXED", null))
        ]
      : []),
    ...(resource === "customization-types"
      ? [set("unknown pricing_scope", "pricing_scope", fc.constantFrom("both", "Group", null))]
      : []),
    ...(resource === "customization-options" ? [set("code longer than 100 characters", "code", text(101, 120))] : []),
    ...(resource === "categories" || resource === "collections" || resource === "brands"
      ? [set("description longer than 4000 characters", "description", text(4001, 4010))]
      : [])
  ]
}

const productSchemaRules = (world: World): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const any = base(world, "products")
  const single = world.records.products.find((p) => p.kind === "single")!
  const type = world.records["customization-types"][0]
  const component = reference(world, "products", single.externalId)
  const withBody = (rule: string, path: string, edit: (body: Body) => fc.Arbitrary<Body>) =>
    any.chain((write) => edit(write.body)).map((body) => label("products", rule, "validation_failed", path, body))
  return [
    withBody("sku longer than 100 characters", "$.sku", (b) => text(101, 120).map((sku) => ({ ...b, sku }))),
    withBody("no category", "$.category_ids", (b) => fc.constant({ ...b, category_ids: [] })),
    withBody("51 categories", "$.category_ids", (b) =>
      fc.constant({ ...b, category_ids: Array.from({ length: 51 }, () => world.idOf("categories", "category-0")) })
    ),
    withBody("a category reference that is not a uuid", "$.category_ids[0]", (b) =>
      fc.constantFrom("category-0", "", "123").map((bad) => ({ ...b, category_ids: [bad] }))
    ),
    withBody("a reference object with another key", "$.collection_id.x", (b) =>
      fc.constant({ ...b, collection_id: { external_id: "collection-0", x: 1 } })
    ),
    withBody("a negative width", "$.details.width", (b) =>
      fc.constantFrom("-1", "1e3", "1,5", "").map((width) => ({ ...b, details: { width } }))
    ),
    withBody("an unknown key in details", "$.details.colour", (b) => fc.constant({ ...b, details: { colour: "red" } })),
    withBody("a component quantity out of 1-10000", "$.components[0].quantity", (b) =>
      fc
        .tuple(component, fc.constantFrom(0, 10_001, 2.5, -1, "2"))
        .map(([productId, quantity]) => ({ ...b, components: [{ product_id: productId, quantity }] }))
    ),
    withBody("a price with 3 decimals", "$.price", (b) =>
      fc.constantFrom("1.234", "-1", "12345678901234567", "1.", ".5").map((price) => ({ ...b, price }))
    ),
    withBody("a price that is a number", "$.price", (b) => fc.constant({ ...b, price: 12.5 })),
    ...(type === undefined
      ? []
      : [
          withBody("a coefficient of 0 or above 100", "$.fields[0].coefficient", (b) =>
            fc
              .tuple(
                reference(world, "customization-types", type.externalId),
                fc.constantFrom("0", "0.0000", "100.0001", "101", "1.12345")
              )
              .map(([typeId, c]) => ({
                ...without(b, "mode"),
                fields: [{ external_id: "field-x", name: "Seat", type_id: typeId, coefficient: c }]
              }))
          ),
          withBody("a field without a name in catalog mode", "$.fields[0].name", (b) =>
            reference(world, "customization-types", type.externalId).map((typeId) => ({
              ...without(b, "mode"),
              fields: [{ external_id: "field-x", type_id: typeId }]
            }))
          )
        ])
  ]
}
