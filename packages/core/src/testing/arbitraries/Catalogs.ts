/**
 * Catalogs as graphs: category trees, customization types -> groups -> options, single products in
 * categories with selection fields over those groups, and bundles of the singles. A plan lists its
 * records in an order that resolves (every reference points at a record before it); `importBatches`
 * cuts it into import bodies and shuffles each, so that an import needs several passes.
 */
import { FastCheck as fc } from "effect"
import type { CompanySettings } from "../../Auth/Company.js"
import { ProductUnit } from "../../Product/Product.js"
import { definitions } from "../../Resources/Registry.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"
import { maxRecords } from "../../Imports/Import.js"
import { applyOrder } from "../../internal/Imports/ImportRunner.js"
import { coefficient, description, money, sameValue, text, translations } from "./Values.js"

/**
 * A reference to a planned record by its external id. Written, it is the record's uuid when `byId` and
 * the uuid is known (the record was written before), else `{external_id}`.
 */
export class Ref {
  constructor(
    readonly resource: ResourceName,
    readonly externalId: string,
    readonly byId: boolean
  ) {}
  toString(): string {
    return `${this.byId ? "id" : "ref"}(${this.resource} ${JSON.stringify(this.externalId)})`
  }
  [fc.toStringMethod](): string {
    return this.toString()
  }
}

/** Looks a planned record's uuid up: known once the record was written. */
export type IdOf = (resource: ResourceName, externalId: string) => string | undefined

/** A body with each `Ref` replaced by what a client sends for it: the record's uuid, or `{external_id}`. */
export const materialize = (body: Document, idOf: IdOf): Document => {
  const walk = (value: unknown): unknown => {
    if (value instanceof Ref) {
      const id = value.byId ? idOf(value.resource, value.externalId) : undefined
      return id ?? { external_id: value.externalId }
    }
    if (Array.isArray(value)) return value.map(walk)
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]))
    return value
  }
  return walk(body) as Document
}

export interface PlannedField {
  readonly externalId: string
  /** External id of the field's customization type. */
  readonly type: string
  /** External ids of its groups, all of that type. */
  readonly groups: ReadonlyArray<string>
}

interface Planned<Name extends ResourceName> {
  readonly resource: Name
  readonly externalId: string
  /** The upsert body, its references as `Ref`s (see `materialize`). */
  readonly body: Document
}

export type PlannedCategory = Planned<"categories"> & { readonly parent: string | null }
export type PlannedShowcase = Planned<"collections" | "brands">
export type PlannedType = Planned<"customization-types"> & { readonly scope: "group" | "option" }
export type PlannedGroup = Planned<"customization-groups"> & { readonly type: string; readonly priced: boolean }
export type PlannedOption = Planned<"customization-options"> & { readonly group: string; readonly priced: boolean }
export type PlannedProduct = Planned<"products"> & {
  readonly kind: "single" | "bundle"
  readonly categories: ReadonlyArray<string>
  /** External ids of a bundle's component singles. */
  readonly components: ReadonlyArray<string>
  readonly fields: ReadonlyArray<PlannedField>
  readonly active: boolean
  /** Whether the product has a price. */
  readonly priced: boolean
  readonly unit: typeof ProductUnit.Type | null
}

export type PlannedRecord =
  PlannedCategory | PlannedShowcase | PlannedType | PlannedGroup | PlannedOption | PlannedProduct

/** A catalog to write for a company, its records in an order that resolves. */
export interface CatalogPlan {
  readonly settings: CompanySettings
  readonly records: ReadonlyArray<PlannedRecord>
}

/** The most records of each kind a plan holds (it holds at least one category and one single product). */
export interface CatalogLimits {
  readonly categories: number
  readonly collections: number
  readonly brands: number
  readonly types: number
  readonly groups: number
  readonly options: number
  readonly singles: number
  readonly bundles: number
}

export const defaultLimits: CatalogLimits = {
  categories: 6,
  collections: 2,
  brands: 2,
  types: 3,
  groups: 4,
  options: 5,
  singles: 5,
  bundles: 2
}

/** Minimums that give a plan records of every kind: what the body arbitraries need to draw bodies of every resource. */
export const everyKind: Partial<CatalogLimits> = {
  collections: 1,
  brands: 1,
  types: 2,
  groups: 2,
  options: 1,
  singles: 2,
  bundles: 1
}

/** External ids of a plan: readable, so that a counterexample says which record is which. */
export const planExternalId = {
  categories: (i: number) => `category-${i}`,
  collections: (i: number) => `collection-${i}`,
  brands: (i: number) => `brand-${i}`,
  "customization-types": (i: number) => `type-${i}`,
  "customization-groups": (i: number) => `group-${i}`,
  "customization-options": (i: number) => `option-${i}`,
  products: (i: number) => `product-${i}`
} as const satisfies Record<ResourceName, (i: number) => string>

const ref = (resource: ResourceName, externalId: string) =>
  fc.boolean().map((byId) => new Ref(resource, externalId, byId))

const index = (count: number) => fc.nat({ max: Math.max(0, count - 1) })

const optionalIndex = (count: number) =>
  count === 0 ? fc.constant(undefined) : fc.option(index(count), { nil: undefined })

/** Translations into the company's other languages, with the keys the resource translates. */
export const translationsFor = (settings: CompanySettings, resource: ResourceName) =>
  translations(
    settings.languages.filter((language) => language !== settings.main_language),
    definitions[resource].translatable
  )

const maybe = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined, freq: 2 })

/** Drops the keys whose value is undefined. */
export const defined = (body: Readonly<Record<string, unknown>>): Document =>
  Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined))

/** A tax rate the company has configured, written in any form of its value; none when it has none. */
export const configuredTaxRate = (settings: CompanySettings): fc.Arbitrary<string | undefined> =>
  settings.tax_rates.length === 0
    ? fc.constant(undefined)
    : fc.constantFrom(...settings.tax_rates).chain((rate) => sameValue(rate, 2))

interface Skeleton {
  readonly counts: Readonly<Record<keyof CatalogLimits, number>>
  readonly parents: ReadonlyArray<number | null>
  readonly scopes: ReadonlyArray<"group" | "option">
  /** Type index of each group. */
  readonly groupTypes: ReadonlyArray<number>
  /** Group index of each option. */
  readonly optionGroups: ReadonlyArray<number>
}

const skeleton = (limits: CatalogLimits, minimums: Partial<CatalogLimits>): fc.Arbitrary<Skeleton> => {
  const count = (kind: keyof CatalogLimits, least = 0) => {
    const min = Math.max(least, minimums[kind] ?? 0)
    return fc.integer({ min, max: Math.max(min, limits[kind]) })
  }
  return fc
    .record({
      categories: count("categories", 1),
      collections: count("collections"),
      brands: count("brands"),
      types: count("types"),
      groups: count("groups"),
      options: count("options"),
      singles: count("singles", 1),
      bundles: count("bundles")
    })
    .map((counts) => ({
      ...counts,
      groups: counts.types === 0 ? 0 : counts.groups,
      options: counts.types === 0 || counts.groups === 0 ? 0 : counts.options
    }))
    .chain((counts) =>
      fc.record({
        counts: fc.constant(counts),
        parents: fc.tuple(
          ...Array.from({ length: counts.categories }, (_, i) =>
            i === 0 ? fc.constant(null) : fc.option(index(i), { nil: null })
          )
        ),
        scopes: fc.array(fc.constantFrom<"group" | "option">("group", "option"), {
          minLength: counts.types,
          maxLength: counts.types
        }),
        groupTypes: fc.array(index(counts.types), { minLength: counts.groups, maxLength: counts.groups }),
        optionGroups: fc.array(index(counts.groups), { minLength: counts.options, maxLength: counts.options })
      })
    )
}

const categoryRecord = (settings: CompanySettings, i: number, parent: number | null) =>
  fc
    .record({
      name: text(1, 40),
      description: maybe(description),
      translations: maybe(translationsFor(settings, "categories")),
      parent: parent === null ? fc.constant(undefined) : ref("categories", planExternalId.categories(parent))
    })
    .map(({ parent: parentRef, ...rest }): PlannedCategory => ({
      resource: "categories",
      externalId: planExternalId.categories(i),
      parent: parent === null ? null : planExternalId.categories(parent),
      body: defined({ external_id: planExternalId.categories(i), ...rest, parent_id: parentRef })
    }))

const showcaseRecord = (settings: CompanySettings, resource: "collections" | "brands", i: number) =>
  fc
    .record({
      name: text(1, 40),
      description: maybe(description),
      translations: maybe(translationsFor(settings, resource))
    })
    .map((fields): PlannedShowcase => ({
      resource,
      externalId: planExternalId[resource](i),
      body: defined({ external_id: planExternalId[resource](i), ...fields })
    }))

const typeRecord = (settings: CompanySettings, i: number, scope: "group" | "option") =>
  fc
    .record({ name: text(1, 40), translations: maybe(translationsFor(settings, "customization-types")) })
    .map((fields): PlannedType => ({
      resource: "customization-types",
      externalId: planExternalId["customization-types"](i),
      scope,
      body: defined({ external_id: planExternalId["customization-types"](i), ...fields, pricing_scope: scope })
    }))

/** A pricing rule: a mode other than none and its value. */
const pricingRule = fc.record({ pricing_mode: fc.constantFrom("percent", "fixed"), pricing_value: money })

const groupRecord = (settings: CompanySettings, i: number, type: number, scope: "group" | "option") =>
  fc
    .record({
      name: text(1, 40),
      type: ref("customization-types", planExternalId["customization-types"](type)),
      active: maybe(fc.boolean()),
      photo_enabled: maybe(fc.boolean()),
      translations: maybe(translationsFor(settings, "customization-groups")),
      rule: scope === "group" ? maybe(pricingRule) : fc.constant(undefined)
    })
    .map(({ type: typeRef, rule, ...rest }): PlannedGroup => ({
      resource: "customization-groups",
      externalId: planExternalId["customization-groups"](i),
      type: planExternalId["customization-types"](type),
      priced: rule !== undefined,
      body: defined({
        external_id: planExternalId["customization-groups"](i),
        ...rest,
        type_id: typeRef,
        ...(rule === undefined ? {} : { mode: "combined", ...rule })
      })
    }))

const optionRecord = (settings: CompanySettings, i: number, group: number, scope: "group" | "option") =>
  fc
    .record({
      name: text(1, 40),
      group: ref("customization-groups", planExternalId["customization-groups"](group)),
      code: maybe(text(0, 100)),
      active: maybe(fc.boolean()),
      translations: maybe(translationsFor(settings, "customization-options")),
      rule: scope === "option" ? maybe(pricingRule) : fc.constant(undefined)
    })
    .map(({ group: groupRef, rule, ...rest }): PlannedOption => ({
      resource: "customization-options",
      externalId: planExternalId["customization-options"](i),
      group: planExternalId["customization-groups"](group),
      priced: rule !== undefined,
      body: defined({
        external_id: planExternalId["customization-options"](i),
        ...rest,
        group_id: groupRef,
        ...(rule === undefined ? {} : { mode: "combined", ...rule })
      })
    }))

/** Selection fields over the plan's types, each linking some groups of its own type. */
const fieldsOf = (shape: Skeleton) =>
  shape.counts.types === 0
    ? fc.constant([] as ReadonlyArray<{ readonly field: PlannedField; readonly body: Document }>)
    : fc
        .array(
          fc.record({
            type: index(shape.counts.types),
            name: text(1, 40),
            coefficient: maybe(coefficient),
            pick: fc.array(fc.boolean(), { minLength: shape.counts.groups, maxLength: shape.counts.groups })
          }),
          { maxLength: 2 }
        )
        .chain((drawn) =>
          fc.tuple(
            ...drawn.map((field, k) => {
              const type = planExternalId["customization-types"](field.type)
              const groups = shape.groupTypes.flatMap((t, g) =>
                t === field.type && field.pick[g] === true ? [planExternalId["customization-groups"](g)] : []
              )
              return fc
                .record({
                  typeRef: ref("customization-types", type),
                  groupRefs: fc.tuple(...groups.map((g) => ref("customization-groups", g)))
                })
                .map(({ typeRef, groupRefs }) => ({
                  field: { externalId: `field-${k}`, type, groups },
                  body: defined({
                    external_id: `field-${k}`,
                    name: field.name,
                    type_id: typeRef,
                    group_ids: groupRefs,
                    coefficient: field.coefficient
                  })
                }))
            })
          )
        )

const productRecord = (
  settings: CompanySettings,
  shape: Skeleton,
  i: number,
  kind: "single" | "bundle"
): fc.Arbitrary<PlannedProduct> => {
  const { counts } = shape
  return fc
    .record({
      name: text(1, 40),
      sku: maybe(text(0, 100)),
      categories: fc.uniqueArray(index(counts.categories), { minLength: 1, maxLength: Math.min(3, counts.categories) }),
      collection: optionalIndex(counts.collections),
      brand: optionalIndex(counts.brands),
      unit: fc.option(fc.constantFrom(...ProductUnit.literals), { nil: null }),
      fields: fieldsOf(shape),
      components:
        kind === "bundle"
          ? fc.uniqueArray(
              fc.record({ single: index(counts.singles), quantity: fc.integer({ min: 1, max: 10_000 }) }),
              {
                maxLength: Math.min(3, counts.singles),
                selector: (c) => c.single
              }
            )
          : fc.constant([]),
      price: maybe(money),
      taxRate: maybe(configuredTaxRate(settings)).map((rate) => rate ?? undefined),
      active: fc.boolean(),
      sendKind: fc.boolean(),
      translations: maybe(translationsFor(settings, "products")),
      byId: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 })
    })
    .map((drawn): PlannedProduct => {
      const externalId = planExternalId.products(i)
      const categories = drawn.categories.map(planExternalId.categories)
      const components = drawn.components.map((c) => planExternalId.products(c.single))
      const active =
        drawn.active &&
        drawn.price !== undefined &&
        (kind === "single" || components.length > 0) &&
        drawn.fields.every(({ field }) => field.groups.length > 0)
      const priceKeys = drawn.price !== undefined || drawn.taxRate !== undefined
      return {
        resource: "products",
        externalId,
        kind,
        categories,
        components,
        fields: drawn.fields.map(({ field }) => field),
        active,
        priced: drawn.price !== undefined,
        unit: drawn.unit,
        body: defined({
          external_id: externalId,
          name: drawn.name,
          sku: drawn.sku,
          kind: kind === "bundle" || drawn.sendKind ? kind : undefined,
          category_ids: categories.map((c, k) => new Ref("categories", c, drawn.byId[k % 6] === true)),
          collection_id:
            drawn.collection === undefined
              ? undefined
              : new Ref("collections", planExternalId.collections(drawn.collection), drawn.byId[1] === true),
          brand_id:
            drawn.brand === undefined
              ? undefined
              : new Ref("brands", planExternalId.brands(drawn.brand), drawn.byId[2] === true),
          unit: drawn.unit ?? undefined,
          fields: drawn.fields.length === 0 ? undefined : drawn.fields.map(({ body }) => body),
          components:
            kind === "bundle"
              ? drawn.components.map((c, k) => ({
                  product_id: new Ref("products", planExternalId.products(c.single), drawn.byId[(k + 3) % 6] === true),
                  quantity: c.quantity
                }))
              : undefined,
          translations: drawn.translations,
          active: active ? true : undefined,
          ...(priceKeys ? { mode: "combined", price: drawn.price, tax_rate: drawn.taxRate } : {})
        })
      }
    })
}

/**
 * A catalog for a company with the given settings, `minimums` to `limits` records of each kind (`everyKind`
 * for some of every kind), its records in
 * an order that resolves: categories (parents first), collections, brands, types, groups, options, single
 * products, bundles. References are drawn by uuid or `{external_id}`; priced records are written in
 * combined mode; a product is active only when it passes sale validation.
 */
export const catalog = (
  settings: CompanySettings,
  limits: CatalogLimits = defaultLimits,
  minimums: Partial<CatalogLimits> = {}
): fc.Arbitrary<CatalogPlan> =>
  skeleton(limits, minimums).chain((shape) => {
    const { counts } = shape
    const range = (n: number) => Array.from({ length: n }, (_, i) => i)
    const records: Array<fc.Arbitrary<PlannedRecord>> = [
      ...range(counts.categories).map((i) => categoryRecord(settings, i, shape.parents[i] ?? null)),
      ...range(counts.collections).map((i) => showcaseRecord(settings, "collections", i)),
      ...range(counts.brands).map((i) => showcaseRecord(settings, "brands", i)),
      ...range(counts.types).map((i) => typeRecord(settings, i, shape.scopes[i]!)),
      ...range(counts.groups).map((i) =>
        groupRecord(settings, i, shape.groupTypes[i]!, shape.scopes[shape.groupTypes[i]!]!)
      ),
      ...range(counts.options).map((i) => {
        const group = shape.optionGroups[i]!
        return optionRecord(settings, i, group, shape.scopes[shape.groupTypes[group]!]!)
      }),
      ...range(counts.singles).map((i) => productRecord(settings, shape, i, "single")),
      ...range(counts.bundles).map((i) => productRecord(settings, shape, counts.singles + i, "bundle"))
    ]
    return fc.tuple(...records).map((drawn) => ({ settings, records: drawn }))
  })

/** The external ids each record of a plan references, as `resource|external_id`. */
export const dependenciesOf = (record: PlannedRecord): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (value: unknown): void => {
    if (value instanceof Ref) found.push(`${value.resource}|${value.externalId}`)
    else if (Array.isArray(value)) value.forEach(walk)
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk)
  }
  walk(record.body)
  return found
}

/**
 * A plan's records as consecutive import bodies of at most `maxRecords` records, each shuffled: every
 * reference points into the same body or an earlier one, so each import resolves, over several passes
 * when a record comes before one it references (a child category before its parent, a bundle before
 * its components).
 */
export const importBatches = (
  plan: CatalogPlan,
  size: number = maxRecords
): fc.Arbitrary<ReadonlyArray<ReadonlyArray<PlannedRecord>>> => {
  const n = plan.records.length
  return fc.array(fc.boolean(), { minLength: Math.max(0, n - 1), maxLength: Math.max(0, n - 1) }).chain((cuts) => {
    const batches: Array<Array<PlannedRecord>> = [[]]
    plan.records.forEach((record, i) => {
      const current = batches[batches.length - 1]!
      if (i > 0 && (cuts[i - 1] === true || current.length >= size)) batches.push([record])
      else current.push(record)
    })
    return fc.tuple(
      ...batches.map((batch) => fc.shuffledSubarray(batch, { minLength: batch.length, maxLength: batch.length }))
    )
  })
}

/** Whether an import body applies in one pass: in the import's apply order, no record references one after it. */
export const resolvesInOnePass = (batch: ReadonlyArray<PlannedRecord>): boolean => {
  const inBatch = new Set(batch.map((record) => `${record.resource}|${record.externalId}`))
  const seen = new Set<string>()
  for (const { record } of applyOrder(
    batch.map((record, index) => ({ index, resource: record.resource, body: record.body, record }))
  )) {
    if (dependenciesOf(record).some((dep) => inBatch.has(dep) && !seen.has(dep))) return false
    seen.add(`${record.resource}|${record.externalId}`)
  }
  return true
}
