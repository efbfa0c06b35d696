/**
 * Invalid upsert bodies against a written catalog (a `World`), each labelled with the rule it breaks and
 * what the use case answers: the error `code` and the JSON path among the error's issues (null for an
 * error without issues, such as `revision_conflict`). Each body breaks exactly one rule: it is a valid
 * body (see `ValidBodies`) with one change, so the answer does not depend on the order of the checks.
 */
import { FastCheck as fc } from "effect"
import { codes as currencyCodes } from "../../Shared/Currency.js"
import { equals } from "../../Shared/Decimal.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../Resources/ResourceDefinition.js"
import type { World } from "../World.js"
import { defined, type PlannedProduct } from "./Catalogs.js"
import { reference, type ValidWrite, validWrite } from "./ValidBodies.js"
import { coefficient, externalId, languageCode, money, name, text, uuid } from "./Values.js"

/** A body the use case refuses, with the answer it must give. */
export interface InvalidWrite {
  readonly resource: ResourceName
  readonly body: Document
  /** The rule the body breaks, in words. */
  readonly rule: string
  /** The error code of the answer (`error.code` in the API's error body). */
  readonly code: string
  /** A JSON path among the error's issues, or null for an error that has none. */
  readonly path: string | null
}

type Body = Readonly<Record<string, unknown>>

const without = (body: Body, ...keys: ReadonlyArray<string>): Body =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)))

const modeOf = (body: Body) => (body.mode ?? "catalog") as string

const label = (resource: ResourceName, rule: string, code: string, path: string | null, body: Body): InvalidWrite => ({
  resource,
  body,
  rule,
  code,
  path
})

/** Valid writes of the resource that satisfy `keep`. */
const base = (world: World, resource: ResourceName, keep: (write: ValidWrite) => boolean = () => true) =>
  validWrite(world, resource).filter(keep)

const notPrices = (write: ValidWrite) => modeOf(write.body) !== "prices"
const creates = (write: ValidWrite) => write.writes === "create"
const catalogMode = (write: ValidWrite) => modeOf(write.body) === "catalog"

/** A JSON key no body schema knows. */
const unknownKey = fc.stringMatching(/^[a-z][a-z_]{0,10}$/).map((key) => `x_${key}`)

/** A reference to no record: a random uuid, or an external id nothing is mapped to. */
const dangling = fc.oneof(
  uuid,
  uuid.map((id) => ({ external_id: `missing-${id}` }))
)

// ---------------------------------------------------------------------------------------------------------
// The body schema: 422 validation_failed at the failing field

const schemaRules = (world: World, resource: ResourceName): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
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

// ---------------------------------------------------------------------------------------------------------
// Rules every resource shares

const otherCurrency = (world: World) =>
  fc.constantFrom(...Array.from(currencyCodes).filter((code) => code !== world.plan.settings.currency))

const translatable: Readonly<Record<ResourceName, ReadonlyArray<"name" | "description">>> = {
  products: ["name", "description"],
  categories: ["name", "description"],
  collections: ["description"],
  brands: ["description"],
  "customization-types": ["name"],
  "customization-groups": ["name"],
  "customization-options": ["name"]
}

const commonRules = (world: World, resource: ResourceName): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const settings = world.plan.settings
  const others = settings.languages.filter((language) => language !== settings.main_language)
  const notEnabled = languageCode.filter((language) => !settings.languages.includes(language))
  const sharedKey = (["name", "description"] as const).find((key) => !translatable[resource].includes(key))
  const records = world.plan.records.filter((r) => r.resource === resource)
  return [
    fc.tuple(base(world, resource), otherCurrency(world)).map(([write, currency]) =>
      label(resource, "a currency other than the company's", "currency_mismatch", "$.currency", {
        ...write.body,
        currency
      })
    ),
    fc.tuple(base(world, resource, notPrices), notEnabled, name).map(([write, language, value]) =>
      label(
        resource,
        "a translation into a language the company has not enabled",
        "language_not_enabled",
        `$.translations.${language}`,
        {
          ...write.body,
          translations: { [language]: { [translatable[resource][0]!]: value } }
        }
      )
    ),
    base(world, resource, notPrices).map((write) =>
      label(
        resource,
        "a translation into the main language",
        "language_not_enabled",
        `$.translations.${settings.main_language}`,
        {
          ...write.body,
          translations: { [settings.main_language]: { [translatable[resource][0]!]: "x" } }
        }
      )
    ),
    ...(sharedKey !== undefined && others.length > 0
      ? [
          fc.tuple(base(world, resource, notPrices), fc.constantFrom(...others)).map(([write, language]) =>
            label(
              resource,
              `a translated ${sharedKey}, which is shared across languages`,
              "translation_not_allowed",
              `$.translations.${language}.${sharedKey}`,
              {
                ...write.body,
                translations: { [language]: { [sharedKey]: "x" } }
              }
            )
          )
        ]
      : []),
    base(world, resource, (w) => creates(w) && notPrices(w)).map((write) =>
      label(resource, "a new record without a name", "missing_required_field", "$.name", without(write.body, "name"))
    ),
    ...(records.length === 0
      ? []
      : [
          fc
            .tuple(
              fc.constantFrom(...records),
              fc.constantFrom<number | undefined>(0, 2, 7, undefined),
              base(world, resource, (w) => !creates(w))
            )
            .map(([record, revision, write]) =>
              label(
                resource,
                revision === undefined
                  ? "an update without expected_revision"
                  : `an update with expected_revision ${revision}, not 1`,
                "revision_conflict",
                null,
                defined({
                  ...without(write.body, "expected_revision"),
                  external_id: record.externalId,
                  expected_revision: revision
                })
              )
            )
        ]),
    ...(records.length < 2
      ? []
      : [
          fc
            .tuple(fc.constantFrom(...records), fc.nat({ max: records.length - 2 }))
            .map(([a, k]) => [a, records.filter((r) => r !== a)[k]!] as const)
            .map(([a, b]) =>
              label(
                resource,
                "a target_id other than the record the external_id is mapped to",
                "mapping_conflict",
                null,
                {
                  external_id: a.externalId,
                  expected_revision: 1,
                  target_id: world.idOf(resource, b.externalId)
                }
              )
            )
        ]),
    fc.tuple(base(world, resource, creates), fc.integer({ min: 1, max: 9 })).map(([write, revision]) =>
      label(resource, "a new record with expected_revision above 0", "revision_conflict", null, {
        ...write.body,
        expected_revision: revision
      })
    ),
    base(world, resource, creates).map((write) =>
      label(resource, "prices mode for an external_id no record is mapped to", "not_found", null, {
        external_id: write.body.external_id,
        mode: "prices"
      })
    ),
    fc
      .tuple(base(world, resource, creates), uuid)
      .map(([write, id]) =>
        label(resource, "a target_id of no record", "not_found", null, { ...write.body, target_id: id })
      )
  ]
}

// ---------------------------------------------------------------------------------------------------------
// Rules of each resource

const categoryRules = (world: World): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const all = world.records.categories
  const descendants = (root: string) => all.filter((c) => c.parent === root)
  const withChild = all.filter((c) => descendants(c.externalId).length > 0)
  return [
    fc.tuple(base(world, "categories", notPrices), dangling).map(([write, parent]) =>
      label("categories", "a parent that does not exist", "unresolved_reference", "$.parent_id", {
        ...write.body,
        parent_id: parent
      })
    ),
    fc
      .constantFrom(...all)
      .chain((c) => reference(world, "categories", c.externalId).map((self) => ({ c, self })))
      .map(({ c, self }) =>
        label("categories", "a category as its own parent", "category_cycle", "$.parent_id", {
          external_id: c.externalId,
          expected_revision: 1,
          parent_id: self
        })
      ),
    ...(withChild.length === 0
      ? []
      : [
          fc
            .constantFrom(...withChild)
            .chain((c) =>
              fc
                .constantFrom(...descendants(c.externalId))
                .chain((child) => reference(world, "categories", child.externalId).map((ref) => ({ c, ref })))
            )
            .map(({ c, ref }) =>
              label("categories", "a child category as the parent", "category_cycle", "$.parent_id", {
                external_id: c.externalId,
                expected_revision: 1,
                parent_id: ref
              })
            )
        ])
  ]
}

const showcaseRules = (world: World, resource: "collections" | "brands") => [
  fc.tuple(base(world, resource, notPrices), dangling).map(([write, image]) =>
    label(resource, "an image that does not exist", "unresolved_reference", "$.image_id", {
      ...write.body,
      image_id: image
    })
  )
]

const pricedTypeRules = (world: World) => {
  const groups = world.records["customization-groups"]
  const options = world.records["customization-options"]
  return world.records["customization-types"].flatMap((type) => {
    const own = groups.filter((g) => g.type === type.externalId)
    const losing =
      type.scope === "group"
        ? own.some((g) => g.priced)
        : options.some((o) => o.priced && own.some((g) => g.externalId === o.group))
    return losing
      ? [
          fc.constant(
            label(
              "customization-types",
              "a pricing_scope change that leaves rules on the other level",
              "invalid_pricing",
              "$.pricing_scope",
              {
                external_id: type.externalId,
                expected_revision: 1,
                pricing_scope: type.scope === "group" ? "option" : "group"
              }
            )
          )
        ]
      : []
  })
}

const groupRules = (world: World): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const types = world.records["customization-types"]
  const byScope = (scope: "group" | "option") => types.filter((t) => t.scope === scope)
  const create = base(world, "customization-groups", (w) => creates(w))
  const withType = (scope: "group" | "option") =>
    fc.constantFrom(...byScope(scope)).chain((t) => reference(world, "customization-types", t.externalId))
  const optionsPriced = world.records["customization-groups"].filter((g) =>
    world.records["customization-options"].some((o) => o.group === g.externalId && o.priced)
  )
  return [
    fc.tuple(base(world, "customization-groups", notPrices), dangling).map(([write, type]) =>
      label("customization-groups", "a type that does not exist", "unresolved_reference", "$.type_id", {
        ...write.body,
        type_id: type
      })
    ),
    create.map((write) =>
      label(
        "customization-groups",
        "a new group without a type",
        "missing_required_field",
        "$.type_id",
        without(write.body, "type_id")
      )
    ),
    fc
      .tuple(base(world, "customization-groups", catalogMode), fc.constantFrom("pricing_mode", "pricing_value"))
      .map(([write, key]) =>
        label("customization-groups", `${key} in catalog mode`, "field_not_allowed_in_mode", `$.${key}`, {
          ...write.body,
          [key]: key === "pricing_mode" ? "none" : "1.00"
        })
      ),
    ...(byScope("group").length === 0
      ? []
      : [
          fc.tuple(create, withType("group"), fc.constantFrom("percent", "fixed")).map(([write, typeId, mode]) =>
            label("customization-groups", "a pricing rule without a value", "invalid_pricing", "$.pricing_value", {
              ...without(write.body, "pricing_value"),
              mode: "combined",
              type_id: typeId,
              pricing_mode: mode
            })
          )
        ]),
    ...(byScope("option").length === 0
      ? []
      : [
          fc
            .tuple(create, withType("option"), fc.constantFrom("percent", "fixed"), money)
            .map(([write, typeId, mode, value]) =>
              label(
                "customization-groups",
                "a pricing rule on a group of an option-priced type",
                "invalid_pricing",
                "$.pricing_mode",
                {
                  ...write.body,
                  mode: "combined",
                  type_id: typeId,
                  pricing_mode: mode,
                  pricing_value: value
                }
              )
            )
        ]),
    ...(byScope("group").length === 0 || optionsPriced.length === 0
      ? []
      : [
          fc.tuple(fc.constantFrom(...optionsPriced), withType("group")).map(([group, typeId]) =>
            label(
              "customization-groups",
              "a move to a group-priced type while options carry rules",
              "invalid_pricing",
              "$.type_id",
              {
                external_id: group.externalId,
                expected_revision: 1,
                type_id: typeId
              }
            )
          )
        ])
  ]
}

const optionRules = (world: World): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const groups = world.records["customization-groups"]
  const scopeOf = (group: string) =>
    world.records["customization-types"].find((t) => t.externalId === groups.find((g) => g.externalId === group)!.type)!
      .scope
  const groupPriced = groups.filter((g) => scopeOf(g.externalId) === "group")
  return [
    fc
      .tuple(base(world, "customization-options", notPrices), dangling, fc.constantFrom("group_id", "media_id"))
      .map(([write, ref, key]) =>
        label(
          "customization-options",
          `a ${key === "group_id" ? "group" : "media item"} that does not exist`,
          "unresolved_reference",
          `$.${key}`,
          {
            ...write.body,
            [key]: ref
          }
        )
      ),
    base(world, "customization-options", creates).map((write) =>
      label(
        "customization-options",
        "a new option without a group",
        "missing_required_field",
        "$.group_id",
        without(write.body, "group_id")
      )
    ),
    fc
      .tuple(base(world, "customization-options", catalogMode), fc.constantFrom("pricing_mode", "pricing_value"))
      .map(([write, key]) =>
        label("customization-options", `${key} in catalog mode`, "field_not_allowed_in_mode", `$.${key}`, {
          ...write.body,
          [key]: key === "pricing_mode" ? "none" : "1.00"
        })
      ),
    ...(groupPriced.length === 0
      ? []
      : [
          fc
            .tuple(
              base(world, "customization-options", creates),
              fc.constantFrom(...groupPriced).chain((g) => reference(world, "customization-groups", g.externalId)),
              fc.constantFrom("percent", "fixed"),
              money
            )
            .map(([write, groupId, mode, value]) =>
              label(
                "customization-options",
                "a pricing rule on an option of a group-priced type",
                "invalid_pricing",
                "$.pricing_mode",
                {
                  ...write.body,
                  mode: "combined",
                  group_id: groupId,
                  pricing_mode: mode,
                  pricing_value: value
                }
              )
            )
        ])
  ]
}

const productRules = (world: World): ReadonlyArray<fc.Arbitrary<InvalidWrite>> => {
  const products = world.records.products
  const singles = products.filter((p) => p.kind === "single")
  const bundles = products.filter((p) => p.kind === "bundle")
  const types = world.records["customization-types"]
  const groupsOf = (type: string) => world.records["customization-groups"].filter((g) => g.type === type)
  const componentsInBundles = singles.filter((s) => bundles.some((b) => b.components.includes(s.externalId)))
  const single = fc.constantFrom(...singles).chain((p) => reference(world, "products", p.externalId))
  const create = (kind: "single" | "bundle", mode?: "catalog" | "combined") =>
    base(
      world,
      "products",
      (w) => creates(w) && (w.body.kind ?? "single") === kind && (mode === undefined || modeOf(w.body) === mode)
    ).map((w) => without(w.body, "fields", "active"))
  const mismatched = types.flatMap((t) =>
    types
      .filter((other) => other !== t)
      .flatMap((other) => groupsOf(other.externalId).map((g) => ({ type: t, group: g })))
  )
  const unconfigured = money.filter((rate) => !world.plan.settings.tax_rates.some((r) => equals(r, rate)))
  const field = (typeId: unknown, extra: Body = {}) => ({
    external_id: "field-x",
    name: "Seat",
    type_id: typeId,
    ...extra
  })
  const anyType =
    types.length === 0
      ? undefined
      : fc.constantFrom(...types).chain((t) => reference(world, "customization-types", t.externalId))
  const bundleWith = (p: PlannedProduct) => reference(world, "products", p.externalId)
  return [
    fc
      .tuple(base(world, "products", catalogMode), fc.constantFrom("price", "market_price", "cost", "tax_rate"))
      .map(([write, key]) =>
        label("products", `${key} in catalog mode`, "field_not_allowed_in_mode", `$.${key}`, {
          ...write.body,
          [key]: "1.00"
        })
      ),
    fc
      .tuple(
        base(world, "products", (w) => modeOf(w.body) === "combined"),
        unconfigured
      )
      .map(([write, rate]) =>
        label("products", "a tax rate the company has not configured", "tax_rate_not_configured", "$.tax_rate", {
          ...write.body,
          tax_rate: rate
        })
      ),
    fc
      .tuple(base(world, "products", notPrices), dangling, fc.constantFrom("cover_id", "collection_id", "brand_id"))
      .map(([write, ref, key]) =>
        label("products", `a ${key.replace("_id", "")} that does not exist`, "unresolved_reference", `$.${key}`, {
          ...write.body,
          [key]: ref
        })
      ),
    fc.tuple(base(world, "products", notPrices), dangling, fc.nat({ max: 3 })).map(([write, ref, at]) => {
      const sent = (write.body.category_ids as ReadonlyArray<unknown> | undefined) ?? [
        world.idOf("categories", "category-0")
      ]
      const i = Math.min(at, sent.length)
      return label("products", "a category that does not exist", "unresolved_reference", `$.category_ids[${i}]`, {
        ...write.body,
        category_ids: [...sent.slice(0, i), ref, ...sent.slice(i + 1)]
      })
    }),
    fc.tuple(base(world, "products", notPrices), dangling).map(([write, ref]) =>
      label("products", "a media item that does not exist", "unresolved_reference", "$.media_ids[0]", {
        ...write.body,
        media_ids: [ref]
      })
    ),
    base(world, "products", (w) => creates(w) && notPrices(w)).map((write) =>
      label(
        "products",
        "a new product without a category",
        "missing_required_field",
        "$.category_ids",
        without(write.body, "category_ids")
      )
    ),
    fc.tuple(create("single"), single).map(([body, component]) =>
      label("products", "a single product with components", "invalid_bundle", "$.components", {
        ...body,
        components: [{ product_id: component, quantity: 1 }]
      })
    ),
    fc.tuple(create("bundle"), single, fc.integer({ min: 1, max: 10_000 })).map(([body, component, quantity]) =>
      label("products", "a bundle listing a product twice", "invalid_bundle", "$.components[1].product_id", {
        ...body,
        components: [
          { product_id: component, quantity },
          { product_id: component, quantity: 1 }
        ]
      })
    ),
    ...(bundles.length === 0
      ? []
      : [
          fc.tuple(create("bundle"), fc.constantFrom(...bundles).chain(bundleWith)).map(([body, nested]) =>
            label("products", "a bundle of a bundle", "invalid_bundle", "$.components[0].product_id", {
              ...body,
              components: [{ product_id: nested, quantity: 1 }]
            })
          ),
          fc
            .constantFrom(...bundles)
            .chain((b) => bundleWith(b).map((self) => ({ b, self })))
            .map(({ b, self }) =>
              label("products", "a bundle containing itself", "invalid_bundle", "$.components[0].product_id", {
                external_id: b.externalId,
                expected_revision: 1,
                components: [{ product_id: self, quantity: 1 }]
              })
            )
        ]),
    ...(componentsInBundles.length === 0
      ? []
      : [
          fc.constantFrom(...componentsInBundles).map((p) =>
            label("products", "a component of a bundle becoming a bundle", "invalid_bundle", "$.kind", {
              external_id: p.externalId,
              expected_revision: 1,
              kind: "bundle"
            })
          )
        ]),
    ...(mismatched.length === 0
      ? []
      : [
          fc
            .tuple(
              create("single"),
              fc
                .constantFrom(...mismatched)
                .chain(({ type, group }) =>
                  fc.tuple(
                    reference(world, "customization-types", type.externalId),
                    reference(world, "customization-groups", group.externalId)
                  )
                )
            )
            .map(([body, [typeId, groupId]]) =>
              label(
                "products",
                "a selection field linking a group of another type",
                "invalid_selection_field",
                "$.fields[0].group_ids[0]",
                {
                  ...body,
                  fields: [field(typeId, { group_ids: [groupId] })]
                }
              )
            )
        ]),
    ...(anyType === undefined
      ? []
      : [
          fc.tuple(create("single"), anyType, uuid).map(([body, typeId, id]) =>
            label(
              "products",
              "a new field named by an id the product does not have",
              "invalid_selection_field",
              "$.fields[0]",
              {
                ...body,
                fields: [{ id, name: "Seat", type_id: typeId }]
              }
            )
          ),
          fc.tuple(create("single"), anyType).map(([body, typeId]) =>
            label("products", "a field without id or external_id", "invalid_selection_field", "$.fields[0]", {
              ...body,
              fields: [{ name: "Seat", type_id: typeId }]
            })
          ),
          fc.tuple(create("single"), anyType).map(([body, typeId]) =>
            label("products", "two fields with one external_id", "invalid_selection_field", "$.fields[1]", {
              ...body,
              fields: [field(typeId), field(typeId, { name: "Back" })]
            })
          ),
          fc.tuple(create("single", "combined"), anyType, money).map(([body, typeId, price]) =>
            label(
              "products",
              "an active product with a field that links no group",
              "sale_validation_failed",
              "$.fields[0].group_ids",
              {
                ...body,
                price,
                active: true,
                fields: [field(typeId)]
              }
            )
          )
        ]),
    fc
      .tuple(
        fc.constantFrom(...products),
        externalId.filter((id) => !id.startsWith("field-")),
        coefficient
      )
      .map(([p, missing, c]) =>
        label(
          "products",
          "prices mode setting the coefficient of a field the product does not have",
          "invalid_selection_field",
          "$.fields[0]",
          {
            external_id: p.externalId,
            expected_revision: 1,
            mode: "prices",
            fields: [{ external_id: missing, coefficient: c }]
          }
        )
      ),
    create("single", "catalog").map((body) =>
      label("products", "an active product without a price", "sale_validation_failed", "$.price", {
        ...body,
        active: true
      })
    ),
    fc.tuple(create("bundle", "combined"), money).map(([body, price]) =>
      label("products", "an active bundle without components", "sale_validation_failed", "$.components", {
        ...without(body, "components"),
        price,
        active: true
      })
    )
  ]
}

/**
 * Invalid upsert bodies of `resource` against the world, each labelled with the rule it breaks, the error
 * code and the JSON path the use case answers (the principal that wrote the world sends them).
 */
export const invalidWrite = (world: World, resource: ResourceName): fc.Arbitrary<InvalidWrite> => {
  const own: ReadonlyArray<fc.Arbitrary<InvalidWrite>> =
    resource === "categories"
      ? categoryRules(world)
      : resource === "collections" || resource === "brands"
        ? showcaseRules(world, resource)
        : resource === "customization-types"
          ? pricedTypeRules(world)
          : resource === "customization-groups"
            ? groupRules(world)
            : resource === "customization-options"
              ? optionRules(world)
              : productRules(world)
  return fc.oneof(...schemaRules(world, resource), ...commonRules(world, resource), ...own)
}

/** Whether `path` is `within` or under it (`$.fields[0].name` is under `$.fields[0]`). */
export const isWithin = (path: string, within: string): boolean =>
  path === within || path.startsWith(`${within}.`) || path.startsWith(`${within}[`)
