/**
 * Valid product bodies: the rules that span a product's fields reasoned on the product as the write
 * leaves it: sale validation for an active product (a price, components for a bundle, groups for every
 * selection field), bundles of live single products other than itself, a kind a bundle's component keeps,
 * selection fields that keep their ids and link groups of their own type, configured tax rates, and
 * coefficients of stored fields in prices mode.
 */
import * as fc from "fast-check"
import { ProductUnit } from "../../Product/Product.js"
import type { World } from "../World.js"
import { configuredTaxRate, defined, translationsFor } from "./BodyParts.js"
import type { PlannedProduct } from "./CatalogPlan.js"
import { coefficient, description, dimension, externalId, money, name, text } from "./Values.js"
import {
  type Body,
  createControl,
  createOrUpdate,
  maybe,
  type Mode,
  reference,
  referenceTo,
  some,
  updateControl,
  type ValidWrite
} from "./Writes.js"

/** A selection field as the product will hold it: its type and how many groups it links. */
interface FieldOutcome {
  readonly body: Body
  readonly groups: number
}

/** Groups of `type`, as references, some of them. */
const groupsOfType = (world: World, type: string, minLength = 0) => {
  const candidates = world.records["customization-groups"].filter((g) => g.type === type)
  return candidates.length < minLength
    ? fc.constant(undefined)
    : fc
        .subarray([...candidates], { minLength })
        .chain((chosen) => fc.tuple(...chosen.map((g) => reference(world, "customization-groups", g.externalId))))
}

/** A new selection field (named by a fresh external id) of some type of the world. */
const newField = (world: World, externalId: string, needsGroups: boolean): fc.Arbitrary<FieldOutcome | undefined> => {
  const allTypes = world.records["customization-types"]
  const usable = needsGroups
    ? allTypes.filter((t) => world.records["customization-groups"].some((g) => g.type === t.externalId))
    : allTypes
  if (usable.length === 0) return fc.constant(undefined)
  return fc.constantFrom(...usable).chain((type) =>
    fc
      .record({
        typeId: reference(world, "customization-types", type.externalId),
        groupIds: groupsOfType(world, type.externalId, needsGroups ? 1 : 0),
        name,
        extra: some({ translations: translationsFor(world.plan.settings, "products"), coefficient })
      })
      .map(({ typeId, groupIds, name, extra }) => ({
        body: defined({ external_id: externalId, name, type_id: typeId, group_ids: groupIds, ...extra }),
        groups: groupIds?.length ?? 0
      }))
  )
}

/**
 * A sent field that names a stored one (by id, external id or both): it keeps its id; a field sent without
 * group_ids keeps its stored groups, so a new type comes with groups of its own.
 */
const storedField = (
  world: World,
  product: PlannedProduct,
  field: PlannedProduct["fields"][number],
  needsGroups: boolean
): fc.Arbitrary<FieldOutcome | undefined> => {
  const id = world.fieldIdOf(product.externalId, field.externalId)
  const named = fc.constantFrom<Body>({ id }, { external_id: field.externalId }, { id, external_id: field.externalId })
  const keepType = fc.record({
    typeId: reference(world, "customization-types", field.type),
    groupIds:
      needsGroups && field.groups.length === 0
        ? groupsOfType(world, field.type, 1)
        : fc.option(groupsOfType(world, field.type, needsGroups ? 1 : 0), { nil: undefined })
  })
  return fc.tuple(named, keepType, name, maybe(coefficient)).map(([identity, { typeId, groupIds }, fieldName, c]) => {
    const groups = groupIds === undefined ? field.groups.length : groupIds.length
    if (needsGroups && groups === 0) return undefined
    return {
      body: defined({ ...identity, name: fieldName, type_id: typeId, group_ids: groupIds, coefficient: c }),
      groups
    }
  })
}

/** A whole new field list: stored fields named again and new ones, each stored field at most once. */
const fieldList = (
  world: World,
  product: PlannedProduct | undefined,
  needsGroups: boolean
): fc.Arbitrary<ReadonlyArray<Body> | undefined> => {
  const stored = product?.fields ?? []
  const taken = new Set(stored.map((f) => f.externalId))
  const fresh = fc.uniqueArray(
    externalId.filter((id) => !taken.has(id)),
    { maxLength: 3 }
  )
  return fc
    .tuple(fc.subarray([...stored]), fresh)
    .chain(([kept, freshIds]) =>
      fc.tuple(
        ...kept.map((field) => storedField(world, product!, field, needsGroups)),
        ...freshIds.map((id) => newField(world, id, needsGroups))
      )
    )
    .chain((outcomes) => fc.shuffledSubarray(outcomes, { minLength: outcomes.length, maxLength: outcomes.length }))
    .map((outcomes) => outcomes.filter((o): o is FieldOutcome => o !== undefined).map((o) => o.body))
}

const productDetails = some({
  description,
  width: fc.option(dimension, { nil: null }),
  height: fc.option(dimension, { nil: null }),
  depth: fc.option(dimension, { nil: null }),
  weight: fc.option(dimension, { nil: null }),
  volume: fc.option(dimension, { nil: null })
})

/** Catalog keys of a product that no rule spanning fields constrains. */
const freeProductKeys = (world: World) =>
  some({
    sku: text(0, 100),
    collection_id:
      world.records.collections.length === 0
        ? fc.constant(null)
        : fc.option(referenceTo(world, "collections", world.records.collections), { nil: null }),
    brand_id:
      world.records.brands.length === 0
        ? fc.constant(null)
        : fc.option(referenceTo(world, "brands", world.records.brands), { nil: null }),
    details: productDetails,
    unit: fc.constantFrom(...ProductUnit.literals),
    media_ids: fc.constant([]),
    cover_id: fc.constant(null)
  })

const categoryIds = (world: World) =>
  fc.array(referenceTo(world, "categories", world.records.categories), { minLength: 1, maxLength: 4 })

/** Price keys for combined or prices mode; `price` is never cleared (it is not nullable). */
const priceKeys = (world: World) =>
  some({
    price: money,
    market_price: fc.option(money, { nil: null }),
    cost: fc.option(money, { nil: null }),
    tax_rate:
      world.plan.settings.tax_rates.length === 0
        ? fc.constant(null)
        : fc.oneof(fc.constant(null), configuredTaxRate(world.plan.settings))
  })

/** Single products of the world a bundle may list, other than `except`. */
const componentsFrom = (world: World, except: string | undefined, minLength: number) => {
  const singles = world.records.products.filter((p) => p.kind === "single" && p.externalId !== except)
  if (singles.length < minLength) return fc.constant(undefined)
  return fc
    .subarray([...singles], { minLength, maxLength: Math.max(minLength, Math.min(4, singles.length)) })
    .chain((chosen) =>
      fc.tuple(
        ...chosen.map((p) =>
          fc.record({
            product_id: reference(world, "products", p.externalId),
            quantity: fc.integer({ min: 1, max: 10_000 })
          })
        )
      )
    )
}

const productCreate = (world: World, mode: Exclude<Mode, "prices">): fc.Arbitrary<Body> =>
  fc
    .record({ kind: fc.constantFrom<"single" | "bundle">("single", "bundle"), wantsActive: fc.boolean() })
    .chain(({ kind, wantsActive }) => {
      const active = wantsActive && mode === "combined"
      return fc
        .record({
          control: createControl(world, "products", mode),
          fixed: fc.record({ name, category_ids: categoryIds(world) }),
          free: freeProductKeys(world),
          sendKind: fc.boolean(),
          fields: fc.option(fieldList(world, undefined, active), { nil: undefined }),
          components:
            kind === "bundle" ? componentsFrom(world, undefined, active ? 1 : 0) : fc.constantFrom(undefined, []),
          prices: mode === "combined" ? priceKeys(world) : fc.constant({}),
          price: active ? money : fc.constant(undefined),
          inactive: fc.constantFrom(undefined, false)
        })
        .map(({ control, fixed, free, sendKind, fields, components, prices, price, inactive }) =>
          defined({
            ...control,
            ...fixed,
            ...free,
            kind: kind === "bundle" || sendKind ? kind : undefined,
            fields,
            components,
            ...prices,
            ...(price === undefined ? {} : { price }),
            active: active && (kind === "single" || (components?.length ?? 0) > 0) ? true : inactive
          })
        )
    })

const inBundle = (world: World, product: PlannedProduct) =>
  world.records.products.some((bundle) => bundle.components.includes(product.externalId))

const productUpdate = (world: World, product: PlannedProduct, mode: Mode): fc.Arbitrary<Body> => {
  const control = updateControl(world, "products", product.externalId, mode)
  if (mode === "prices") {
    // Coefficients of stored fields, each named once; price keys; catalog keys are preserved (ignored).
    const entries =
      product.fields.length === 0
        ? fc.constant(undefined)
        : fc.subarray([...product.fields], { minLength: 1 }).chain((chosen) =>
            fc.tuple(
              ...chosen.map((field) => {
                const id = world.fieldIdOf(product.externalId, field.externalId)
                return fc
                  .tuple(
                    fc.constantFrom<Body>(
                      { id },
                      { external_id: field.externalId },
                      { id, external_id: field.externalId }
                    ),
                    coefficient
                  )
                  .map(([identity, c]) => ({ ...identity, coefficient: c }))
              })
            )
          )
    return fc
      .tuple(control, priceKeys(world), maybe(entries), some({ name, sku: text(0, 100), active: fc.boolean() }))
      .map(([c, prices, fields, ignored]) => defined({ ...c, ...prices, fields: fields ?? undefined, ...ignored }))
  }
  return fc
    .record({
      kind: fc.constantFrom<"single" | "bundle">(
        product.kind,
        // A bundle may become single (its components go); a single may become a bundle unless a bundle lists it.
        ...(product.kind === "bundle" ? (["single"] as const) : inBundle(world, product) ? [] : (["bundle"] as const))
      ),
      wantsActive: fc.boolean(),
      sendFields: fc.boolean()
    })
    .chain(({ kind, wantsActive, sendFields }) => {
      const priced = product.priced
      const canBeActive = priced || mode === "combined"
      const active = wantsActive && canBeActive
      const fieldsNeedGroups = active
      const keepFields = !sendFields && (!fieldsNeedGroups || product.fields.every((f) => f.groups.length > 0))
      const componentsNeeded = kind === "bundle" && active
      return fc
        .record({
          control,
          free: some({ name, category_ids: categoryIds(world) }),
          others: freeProductKeys(world),
          fields: keepFields ? fc.constant(undefined) : fieldList(world, product, fieldsNeedGroups),
          components:
            kind === "single"
              ? product.kind === "bundle"
                ? fc.constant([])
                : fc.constantFrom(undefined, [])
              : componentsNeeded && product.components.length === 0
                ? componentsFrom(world, product.externalId, 1)
                : fc.option(componentsFrom(world, product.externalId, componentsNeeded ? 1 : 0), { nil: undefined }),
          prices: mode === "combined" ? priceKeys(world) : fc.constant({}),
          price: active && !priced ? money : fc.constant(undefined),
          sendKind: fc.boolean()
        })
        .map(({ control: c, free, others, fields, components, prices, price, sendKind }) => {
          const finalComponents = components ?? (kind === product.kind ? product.components : [])
          const ok = !(kind === "bundle" && active && finalComponents.length === 0)
          return defined({
            ...c,
            ...free,
            ...others,
            kind: kind !== product.kind || sendKind ? kind : undefined,
            fields,
            components: components === null ? undefined : components,
            ...prices,
            ...(price === undefined ? {} : { price }),
            active: active && ok ? true : product.active ? false : undefined
          })
        })
    })
}

/** Valid product bodies against the world. */
export const products = (world: World): fc.Arbitrary<ValidWrite> =>
  createOrUpdate(
    world.records.products,
    (mode) => productCreate(world, mode),
    (p, mode) => productUpdate(world, p, mode),
    "products"
  )
