import { Effect, Schema } from "effect"
import { TaxModel } from "../Auth/Company.js"
import {
  commonRecordFields,
  commonUpsertFields,
  Description,
  Int,
  Name,
  opt,
  strict
} from "../Resources/CommonFields.js"
import { defineResource, type RuleContext, type Violation } from "../internal/Resources/ResourceDefinition.js"
import { type RecordId, UUID } from "../Shared/Ids.js"
import { Dimension, equals, fixed, canonical, Money } from "../internal/Shared/Decimal.js"
import { Reference } from "../Shared/Reference.js"
import { Text } from "../internal/Shared/Text.js"
import type { Translations } from "../Shared/Translations.js"
import { maxItemsDocs, minItemsDocs } from "../internal/Shared/ListDocs.js"
import {
  checkSentFields,
  mergeFields,
  missingFieldKeys,
  SelectionField,
  SelectionFieldInput,
  type StoredField
} from "../internal/Product/SelectionField.js"
import { resolvedIds } from "../internal/Resources/Resolved.js"

/** A single product, or a bundle of singles. */
export const ProductKind = Schema.Literals(["single", "bundle"])
/** The unit a product is sold in. */
export const ProductUnit = Schema.Literals(["piece", "metre", "sqm", "cbm"])
/** A product's state. */
export const ProductState = Schema.Literals(["inactive", "active", "archived"])

const dimensionKeys = ["width", "height", "depth", "weight", "volume"] as const

/** A product's description and dimensions. */
export const ProductDetailsInput = Schema.Struct({
  description: opt(Description),
  width: opt(Schema.NullOr(Dimension)),
  height: opt(Schema.NullOr(Dimension)),
  depth: opt(Schema.NullOr(Dimension)),
  weight: opt(Schema.NullOr(Dimension)),
  volume: opt(Schema.NullOr(Dimension))
}).annotate({
  identifier: "ProductDetailsInput",
  description: "Units: cm for width/height/depth, kg for weight, cubic metres for packaged volume."
})

/** A component of a bundle: a single product and its quantity. */
export const ComponentInput = Schema.Struct({
  product_id: Reference,
  quantity: Int.check(
    Schema.isBetween({ minimum: 1, maximum: 10000 }, { message: "must be a whole number from 1 to 10000" })
  )
}).annotate({ identifier: "ComponentInput" })

/** POST /products/upsert body (spec 2.4). */
export const ProductUpsert = Schema.Struct({
  ...commonUpsertFields,
  name: opt(Name),
  sku: opt(Text(0, 100)),
  kind: opt(ProductKind),
  active: opt(Schema.Boolean),
  category_ids: opt(
    // The item limit first, then the minimum: the order in which Effect 3 checked (and reported) them.
    Schema.Array(Reference).check(
      Schema.isMaxLength(50, { message: "must have 1-50 items" }),
      Schema.isMinLength(1, { message: "must have 1-50 items", ...minItemsDocs(1) })
    )
  ),
  collection_id: opt(Schema.NullOr(Reference)),
  brand_id: opt(Schema.NullOr(Reference)),
  details: opt(ProductDetailsInput),
  unit: opt(ProductUnit),
  components: opt(
    Schema.Array(ComponentInput).check(
      Schema.isMaxLength(100, { message: "must have at most 100 items", ...maxItemsDocs(100) })
    )
  ),
  media_ids: opt(
    Schema.Array(Reference).check(
      Schema.isMaxLength(50, { message: "must have at most 50 items", ...maxItemsDocs(50) })
    )
  ),
  cover_id: opt(Schema.NullOr(Reference)),
  fields: opt(
    Schema.Array(SelectionFieldInput).check(
      Schema.isMaxLength(100, { message: "must have at most 100 items", ...maxItemsDocs(100) })
    )
  ),
  price: opt(Money),
  market_price: opt(Schema.NullOr(Money)),
  cost: opt(Schema.NullOr(Money)),
  tax_rate: opt(Schema.NullOr(Money))
})
  .check(
    // Field entries name their field in catalog and combined mode; in prices mode they only set coefficients.
    Schema.makeFilter((body) =>
      body.mode === "prices" || body.fields === undefined ? undefined : missingFieldKeys(body.fields)
    )
  )
  .annotate({ identifier: "ProductUpsert", ...strict })
export type ProductUpsert = typeof ProductUpsert.Type

const Decimal = Schema.NullOr(Schema.String)

/** A product as returned. Price fields need prices:read, cost needs costs:read. */
export const Product = Schema.Struct({
  ...commonRecordFields,
  state: ProductState,
  archived_at: Schema.NullOr(Schema.String),
  name: Schema.String,
  sku: Schema.NullOr(Schema.String),
  kind: ProductKind,
  active: Schema.Boolean,
  category_ids: Schema.Array(UUID),
  collection_id: Schema.NullOr(UUID),
  brand_id: Schema.NullOr(UUID),
  details: Schema.Struct({
    description: Schema.NullOr(Schema.String),
    width: Decimal,
    height: Decimal,
    depth: Decimal,
    weight: Decimal,
    volume: Decimal
  }),
  unit: Schema.NullOr(ProductUnit),
  components: Schema.Array(Schema.Struct({ product_id: UUID, quantity: Int })),
  media_ids: Schema.Array(UUID),
  cover_id: Schema.NullOr(UUID),
  fields: Schema.Array(SelectionField),
  price: opt(Decimal),
  market_price: opt(Decimal),
  tax_rate: opt(Decimal),
  tax_model: opt(TaxModel),
  cost: opt(Decimal)
}).annotate({ identifier: "Product" })

/** A component of a bundle as stored. */
interface Component {
  readonly product_id: RecordId
  readonly quantity: number
}

/** A product's description and dimensions as stored (dimensions as canonical decimal strings). */
export type ProductDetails = {
  readonly description: string | null
  readonly width: string | null
  readonly height: string | null
  readonly depth: string | null
  readonly weight: string | null
  readonly volume: string | null
}

/** A product's document as stored: what its rules read. */
export type ProductDocument = {
  readonly name: string
  readonly sku: string | null
  readonly kind: typeof ProductKind.Type
  readonly active: boolean
  readonly category_ids: ReadonlyArray<RecordId>
  readonly collection_id: RecordId | null
  readonly brand_id: RecordId | null
  readonly details: ProductDetails
  readonly unit: typeof ProductUnit.Type | null
  readonly components: ReadonlyArray<Component>
  readonly media_ids: ReadonlyArray<RecordId>
  readonly cover_id: RecordId | null
  readonly fields: ReadonlyArray<StoredField>
  readonly price: string | null
  readonly market_price: string | null
  readonly cost: string | null
  readonly tax_rate: string | null
  readonly translations: Translations
}

/** Keeps the first occurrence of each id: a category or image listed twice is listed once. */
const dedupe = (ids: ReadonlyArray<RecordId>): ReadonlyArray<RecordId> => Array.from(new Set(ids))

const moneyOrNull = (value: string | null) => (typeof value === "string" ? fixed(value, 2) : value)

/** The details with each dimension sent as a decimal string in its canonical form (key order kept). */
const canonicalDimensions = (details: ProductDetails): ProductDetails => {
  const out: { -readonly [Key in keyof ProductDetails]: ProductDetails[Key] } = { ...details }
  for (const key of dimensionKeys) {
    const value = out[key]
    if (typeof value === "string") out[key] = canonical(value)
  }
  return out
}

/** What sale validation reads of a product. */
export type SaleFacts = Pick<ProductDocument, "price"> & {
  readonly kind: string
  readonly category_ids: ReadonlyArray<unknown>
  readonly components: ReadonlyArray<unknown>
  readonly fields: ReadonlyArray<Pick<StoredField, "group_ids">>
}

/**
 * Sale validation (spec 3, "existing sale validation", decided in docs/spec-gaps.md): a product may be
 * active only when it can be sold as it stands.
 */
export const saleValidation = (document: SaleFacts): ReadonlyArray<Violation> => {
  const issues: Array<Violation> = []
  const fail = (path: string, message: string) =>
    issues.push({ reason: "sale_validation_failed", issue: { path, message } })
  if (document.category_ids.length === 0) fail("$.category_ids", "an active product needs a category")
  if (document.price === null) fail("$.price", "an active product needs a price")
  if (document.kind === "bundle" && document.components.length === 0) {
    fail("$.components", "an active bundle needs components")
  }
  document.fields.forEach((field, i) => {
    if (field.group_ids.length === 0)
      fail(`$.fields[${i}].group_ids`, "a selection field of an active product needs a group")
  })
  return issues
}

/**
 * A selection field links swatch books of its own customization type (spec 2.5): a "Fabric" field
 * cannot offer a group of "Legs".
 */
const fieldGroupTypes = <E>(fields: ReadonlyArray<StoredField>, context: RuleContext<ProductDocument, E>) =>
  Effect.gen(function* () {
    const groupIds = Array.from(new Set(fields.flatMap((field) => field.group_ids)))
    if (groupIds.length === 0) return []
    const groups = new Map((yield* context.getMany("customization-groups", groupIds)).map((group) => [group.id, group]))
    return fields.flatMap((field, i) =>
      field.group_ids.flatMap((groupId, j): ReadonlyArray<Violation> => {
        const group = groups.get(groupId)
        return group === undefined || group.data.type_id === field.type_id
          ? []
          : [
              {
                reason: "invalid_selection_field",
                issue: {
                  path: `$.fields[${i}].group_ids[${j}]`,
                  message: `group ${groupId} is of customization type ${group.data.type_id}, not the field's type ${field.type_id}`
                }
              }
            ]
      })
    )
  })

const validate = <E>(document: ProductDocument, context: RuleContext<ProductDocument, E>) =>
  Effect.gen(function* () {
    const violations: Array<Violation> = []
    const components = document.components
    if (document.kind === "single" && components.length > 0) {
      violations.push({
        reason: "invalid_bundle",
        issue: { path: "$.components", message: "only a bundle has components" }
      })
    }
    if (document.kind === "bundle") {
      // First: on PostgreSQL this takes the company's bundle lock, before the components are read.
      const containing = yield* context.bundlesContaining(context.recordId)
      if (containing.length > 0) {
        violations.push({
          reason: "invalid_bundle",
          issue: {
            path: "$.kind",
            message: `the product is a component of bundle ${containing.slice(0, 10).join(", ")}; a bundle groups single products only`
          }
        })
      }
    }
    if (document.kind === "bundle" && components.length > 0) {
      const seen = new Set<string>()
      components.forEach((c, i) => {
        const path = `$.components[${i}].product_id`
        if (c.product_id === context.recordId)
          violations.push({ reason: "invalid_bundle", issue: { path, message: "a bundle cannot contain itself" } })
        if (seen.has(c.product_id))
          violations.push({ reason: "invalid_bundle", issue: { path, message: "product listed twice" } })
        seen.add(c.product_id)
      })
      const parts = yield* context.getMany(
        "products",
        components.map((c) => c.product_id)
      )
      const byId = new Map(parts.map((p) => [p.id, p]))
      components.forEach((c, i) => {
        const part = byId.get(c.product_id)
        const path = `$.components[${i}].product_id`
        if (part === undefined) return
        if (part.data.kind !== "single")
          violations.push({
            reason: "invalid_bundle",
            issue: { path, message: "a bundle groups single products only" }
          })
        if (part.archivedAt !== null)
          violations.push({ reason: "invalid_bundle", issue: { path, message: "the product is archived" } })
      })
    }
    violations.push(...(yield* fieldGroupTypes(document.fields, context)))
    const taxRate = document.tax_rate
    if (typeof taxRate === "string" && !context.company.tax_rates.some((rate) => equals(rate, taxRate))) {
      violations.push({
        reason: "tax_rate_not_configured",
        issue: {
          path: "$.tax_rate",
          message: `tax rate ${taxRate} is not configured for the company (${context.company.tax_rates.join(", ") || "none"})`
        }
      })
    }
    if (document.active === true) violations.push(...saleValidation(document))
    return violations
  })

/** The products resource: body and record schemas and rules. */
export const definition = defineResource<typeof ProductUpsert, typeof Product, ProductDocument>({
  name: "products",
  label: "product",
  body: ProductUpsert,
  record: Product,
  priceKeys: ["price", "market_price", "tax_rate"],
  costKeys: ["cost"],
  translatable: ["name", "description"],
  references: [
    { path: ["category_ids", "*"], target: "categories" },
    { path: ["collection_id"], target: "collections" },
    { path: ["brand_id"], target: "brands" },
    { path: ["components", "*", "product_id"], target: "products" },
    { path: ["media_ids", "*"], target: "media" },
    { path: ["cover_id"], target: "media" },
    { path: ["fields", "*", "type_id"], target: "customization-types" },
    { path: ["fields", "*", "group_ids", "*"], target: "customization-groups" }
  ],
  requiredOnCreate: ["name", "category_ids"],
  defaults: {
    name: null,
    sku: null,
    kind: "single",
    active: false,
    category_ids: [],
    collection_id: null,
    brand_id: null,
    details: { description: null, width: null, height: null, depth: null, weight: null, volume: null },
    unit: null,
    components: [],
    media_ids: [],
    cover_id: null,
    fields: [],
    price: null,
    market_price: null,
    cost: null,
    tax_rate: null,
    translations: {}
  },
  mergers: {
    details: (stored, sent) => ({ ...stored, ...sent }),
    fields: mergeFields,
    category_ids: (_, sent) => dedupe(resolvedIds(sent)),
    media_ids: (_, sent) => dedupe(resolvedIds(sent))
  },
  checkBody: (body, stored) => (body.fields === undefined ? [] : checkSentFields(body.fields, stored?.fields ?? [])),
  normalize: (document) => ({
    ...document,
    price: moneyOrNull(document.price),
    market_price: moneyOrNull(document.market_price),
    cost: moneyOrNull(document.cost),
    tax_rate: moneyOrNull(document.tax_rate),
    details: canonicalDimensions(document.details),
    fields: document.fields.map((f) => ({ ...f, coefficient: canonical(f.coefficient) }))
  }),
  validate,
  index: (document) => ({
    active: document.active,
    collectionId: document.collection_id,
    brandId: document.brand_id,
    parentId: null,
    categoryIds: document.category_ids,
    componentIds: document.components.map((c) => c.product_id)
  })
})

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly products: ProductDocument
  }
}
