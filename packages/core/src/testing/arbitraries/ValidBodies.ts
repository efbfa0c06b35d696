/**
 * Valid upsert bodies of every resource against a written catalog (a `World`): creates in catalog and
 * combined mode, updates of the world's records in catalog, combined and prices mode. Each body is one
 * the use case accepts as the world stands: references resolve (by uuid in any letter case or by
 * `{external_id}`), translations use the company's other languages and the keys the resource translates,
 * tax rates are configured ones, pricing rules sit at the level their type prices, selection fields link
 * groups of their own type, bundles group live single products, and an active product passes sale
 * validation. Rules that span fields are reasoned on the record as the update leaves it.
 */
import { FastCheck as fc } from "effect"
import { ProductUnit } from "../../Product/Product.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../Resources/ResourceDefinition.js"
import type { World } from "../World.js"
import {
  configuredTaxRate,
  defined,
  type PlannedCategory,
  type PlannedGroup,
  type PlannedOption,
  type PlannedProduct,
  type PlannedType,
  translationsFor
} from "./Catalogs.js"
import { coefficient, description, dimension, externalId, money, name, text } from "./Values.js"

/** A body the use case accepts, and whether it creates a record (`created`) or updates one (`updated` or `unchanged`). */
export interface ValidWrite {
  readonly resource: ResourceName
  readonly body: Document
  readonly writes: "create" | "update"
}

type Body = Readonly<Record<string, unknown>>

const maybe = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined, freq: 2 })

/** Some of the keys, each drawn from its arbitrary. */
const some = (fields: Readonly<Record<string, fc.Arbitrary<unknown>>>): fc.Arbitrary<Body> =>
  fc.record(fields, { requiredKeys: [] })

/** A record of the world as a client names it: its uuid (in any letter case) or `{external_id}`. */
export const reference = (world: World, resource: ResourceName, externalId: string): fc.Arbitrary<unknown> => {
  const id = world.idOf(resource, externalId)
  return fc.constantFrom<unknown>({ external_id: externalId }, id, id.toUpperCase())
}

const referenceTo = <R extends { readonly externalId: string }>(
  world: World,
  resource: ResourceName,
  records: ReadonlyArray<R>
) => fc.constantFrom(...records).chain((record) => reference(world, resource, record.externalId))

/** An external id no record of `resource` has in the world: the body creates a record. */
const freshExternalId = (world: World, resource: ResourceName) => {
  const taken = new Set(world.plan.records.filter((r) => r.resource === resource).map((r) => r.externalId))
  return externalId.filter((id) => !taken.has(id))
}

type Mode = "catalog" | "combined" | "prices"

const noRecords = (needed: string, of: string) =>
  `the world has no ${needed}, so no valid body of ${of} can be drawn: plan it with Arbitraries.catalog(settings, limits, everyKind)`

/** The control fields of a create: a fresh external id, no or a zero revision, maybe the company currency. */
const createControl = (world: World, resource: ResourceName, mode: Exclude<Mode, "prices">) =>
  fc
    .record({
      external_id: freshExternalId(world, resource),
      expected_revision: maybe(fc.constant(0)),
      currency: maybe(fc.constant(world.plan.settings.currency)),
      translations: maybe(translationsFor(world.plan.settings, resource)),
      sendMode: fc.boolean()
    })
    .map(({ sendMode, ...control }) =>
      defined({ ...control, mode: mode === "combined" || sendMode ? mode : undefined })
    )

/** The control fields of an update of a world record (revision 1). */
const updateControl = (world: World, resource: ResourceName, externalId: string, mode: Mode) =>
  fc
    .record({
      currency: maybe(fc.constant(world.plan.settings.currency)),
      translations: maybe(translationsFor(world.plan.settings, resource)),
      sendMode: fc.boolean()
    })
    .map(({ sendMode, ...control }) =>
      defined({
        external_id: externalId,
        expected_revision: 1,
        ...control,
        mode: mode !== "catalog" || sendMode ? mode : undefined
      })
    )

const mergeBodies = (control: fc.Arbitrary<Body>, fields: fc.Arbitrary<Body>) =>
  fc.tuple(control, fields).map(([c, f]) => defined({ ...c, ...f }))

const modes = (update: boolean): fc.Arbitrary<Mode> =>
  update ? fc.constantFrom<Mode>("catalog", "combined", "prices") : fc.constantFrom<Mode>("catalog", "combined")

/** Creates and updates, as the world has records to update. */
const createOrUpdate = <R>(
  existing: ReadonlyArray<R>,
  create: (mode: Exclude<Mode, "prices">) => fc.Arbitrary<Body>,
  update: (record: R, mode: Mode) => fc.Arbitrary<Body>,
  resource: ResourceName
): fc.Arbitrary<ValidWrite> => {
  const creates = modes(false).chain((mode) =>
    create(mode as Exclude<Mode, "prices">).map((body): ValidWrite => ({ resource, body, writes: "create" }))
  )
  if (existing.length === 0) return creates
  const updates = fc
    .tuple(fc.constantFrom(...existing), modes(true))
    .chain(([record, mode]) => update(record, mode).map((body): ValidWrite => ({ resource, body, writes: "update" })))
  return fc.oneof(creates, updates)
}

// ---------------------------------------------------------------------------------------------------------
// Categories, collections, brands

/** The category and every category under it: none of them may become its parent. */
const subtree = (categories: ReadonlyArray<PlannedCategory>, root: string): ReadonlySet<string> => {
  const inside = new Set([root])
  let grew = true
  while (grew) {
    grew = false
    for (const c of categories)
      if (c.parent !== null && inside.has(c.parent) && !inside.has(c.externalId)) {
        inside.add(c.externalId)
        grew = true
      }
  }
  return inside
}

const categories = (world: World): fc.Arbitrary<ValidWrite> => {
  const all = world.records.categories
  const parent = (excluded: ReadonlySet<string>) => {
    const allowed = all.filter((c) => !excluded.has(c.externalId))
    return allowed.length === 0
      ? fc.constant(null)
      : fc.oneof(fc.constant(null), referenceTo(world, "categories", allowed))
  }
  const fields = (required: boolean, excluded: ReadonlySet<string>) =>
    fc
      .tuple(fc.record({ name }), some({ parent_id: parent(excluded), description, image_id: fc.constant(null) }))
      .chain(([named, rest]) =>
        required
          ? fc.constant({ ...named, ...rest })
          : fc.boolean().map((withName) => (withName ? { ...named, ...rest } : rest))
      )
  return createOrUpdate(
    all,
    (mode) => mergeBodies(createControl(world, "categories", mode), fields(true, new Set())),
    (record, mode) =>
      mergeBodies(
        updateControl(world, "categories", record.externalId, mode),
        fields(false, subtree(all, record.externalId))
      ),
    "categories"
  )
}

const showcases = (world: World, resource: "collections" | "brands"): fc.Arbitrary<ValidWrite> => {
  const fields = (required: boolean) =>
    fc
      .tuple(fc.record({ name }), some({ description, image_id: fc.constant(null) }))
      .chain(([named, rest]) =>
        required
          ? fc.constant({ ...named, ...rest })
          : fc.boolean().map((withName) => (withName ? { ...named, ...rest } : rest))
      )
  return createOrUpdate(
    world.records[resource],
    (mode) => mergeBodies(createControl(world, resource, mode), fields(true)),
    (record, mode) => mergeBodies(updateControl(world, resource, record.externalId, mode), fields(false)),
    resource
  )
}

// ---------------------------------------------------------------------------------------------------------
// Customization types, groups, options

const typeOf = (world: World, externalId: string): PlannedType =>
  world.records["customization-types"].find((t) => t.externalId === externalId)!

const groupOf = (world: World, externalId: string): PlannedGroup =>
  world.records["customization-groups"].find((g) => g.externalId === externalId)!

const optionsOfGroup = (world: World, group: string): ReadonlyArray<PlannedOption> =>
  world.records["customization-options"].filter((o) => o.group === group)

/** A type may change its pricing scope only when the level that loses pricing carries no rule. */
const scopesAllowed = (world: World, type: PlannedType): ReadonlyArray<"group" | "option"> => {
  const groups = world.records["customization-groups"].filter((g) => g.type === type.externalId)
  const options = groups.flatMap((g) => optionsOfGroup(world, g.externalId))
  const other = type.scope === "group" ? "option" : "group"
  const free = other === "option" ? groups.every((g) => !g.priced) : options.every((o) => !o.priced)
  return free ? [type.scope, other] : [type.scope]
}

const types = (world: World): fc.Arbitrary<ValidWrite> =>
  createOrUpdate(
    world.records["customization-types"],
    (mode) =>
      mergeBodies(
        createControl(world, "customization-types", mode),
        fc
          .tuple(
            fc.record({ name }),
            some({ pricing_scope: fc.constantFrom("group", "option"), archived: fc.boolean() })
          )
          .map(([named, rest]) => ({ ...named, ...rest }))
      ),
    (record, mode) =>
      mergeBodies(
        updateControl(world, "customization-types", record.externalId, mode),
        some({ name, pricing_scope: fc.constantFrom(...scopesAllowed(world, record)), archived: fc.boolean() })
      ),
    "customization-types"
  )

/**
 * Pricing keys that leave a valid rule: none, or (where `ruleAllowed`) percent or fixed with a value. A
 * value may be left out when the record keeps its stored one (`storedRule`).
 */
const pricing = (ruleAllowed: boolean, storedRule: boolean): fc.Arbitrary<Body> =>
  fc.oneof(
    fc.constant({}),
    fc.constant({ pricing_mode: "none" }),
    money.map((value) => ({ pricing_mode: "none", pricing_value: value })),
    ...(ruleAllowed
      ? [
          fc.record({ pricing_mode: fc.constantFrom("percent", "fixed"), pricing_value: money }),
          money.map((value) => ({ pricing_value: value })),
          ...(storedRule ? [fc.record({ pricing_mode: fc.constantFrom("percent", "fixed") })] : [])
        ]
      : storedRule
        ? []
        : [money.map((value) => ({ pricing_value: value }))])
  )

/** A pricing rule left as stored, or changed to another valid one. `storedRule` must be allowed unless changed. */
const pricingUpdate = (ruleAllowed: boolean, storedRule: boolean): fc.Arbitrary<Body> =>
  storedRule && !ruleAllowed
    ? fc.oneof(
        fc.constant({ pricing_mode: "none" }),
        money.map((value) => ({ pricing_mode: "none", pricing_value: value }))
      )
    : pricing(ruleAllowed, storedRule)

const groups = (world: World): fc.Arbitrary<ValidWrite> => {
  const allTypes = world.records["customization-types"]
  if (allTypes.length === 0) throw new Error(noRecords("customization types", "customization groups"))
  const groupFields = (type: PlannedType, typeRef: fc.Arbitrary<unknown>, mode: Mode, storedRule: boolean) =>
    fc
      .tuple(
        some({ name, active: fc.boolean(), photo_enabled: fc.boolean() }),
        typeRef,
        mode === "catalog" ? fc.constant({}) : pricingUpdate(type.scope === "group", storedRule)
      )
      .map(([rest, typeId, rule]) => defined({ ...rest, type_id: typeId, ...rule }))
  return createOrUpdate(
    world.records["customization-groups"],
    (mode) =>
      fc.constantFrom(...allTypes).chain((type) =>
        mergeBodies(
          createControl(world, "customization-groups", mode),
          fc
            .tuple(
              fc.record({ name }),
              groupFields(type, reference(world, "customization-types", type.externalId), mode, false)
            )
            .map(([named, rest]) => ({ ...rest, ...named }))
        )
      ),
    (record, mode) => {
      const stored = typeOf(world, record.type)
      const pricedOptions = optionsOfGroup(world, record.externalId).some((o) => o.priced)
      // A move takes the group to a type whose level rules fit: a priced group needs a group-priced type
      // (unless this body sets it to none); a group-priced type needs options without rules.
      const targets = allTypes.filter(
        (t) =>
          t.externalId === stored.externalId ||
          ((mode !== "catalog" || !record.priced || t.scope === "group") && (t.scope === "option" || !pricedOptions))
      )
      if (mode === "prices")
        return mergeBodies(
          updateControl(world, "customization-groups", record.externalId, mode),
          pricingUpdate(stored.scope === "group", record.priced)
        )
      return fc
        .constantFrom(...targets)
        .chain((type) =>
          mergeBodies(
            updateControl(world, "customization-groups", record.externalId, mode),
            groupFields(
              type,
              type.externalId === stored.externalId
                ? maybe(reference(world, "customization-types", type.externalId))
                : reference(world, "customization-types", type.externalId),
              mode,
              record.priced
            )
          )
        )
    },
    "customization-groups"
  )
}

const options = (world: World): fc.Arbitrary<ValidWrite> => {
  const allGroups = world.records["customization-groups"]
  if (allGroups.length === 0) throw new Error(noRecords("customization groups", "customization options"))
  const scopeOf = (group: PlannedGroup) => typeOf(world, group.type).scope
  const optionFields = (group: PlannedGroup, groupRef: fc.Arbitrary<unknown>, mode: Mode, storedRule: boolean) =>
    fc
      .tuple(
        some({ name, code: text(0, 100), active: fc.boolean(), media_id: fc.constant(null) }),
        groupRef,
        mode === "catalog" ? fc.constant({}) : pricingUpdate(scopeOf(group) === "option", storedRule)
      )
      .map(([rest, groupId, rule]) => defined({ ...rest, group_id: groupId, ...rule }))
  return createOrUpdate(
    world.records["customization-options"],
    (mode) =>
      fc.constantFrom(...allGroups).chain((group) =>
        mergeBodies(
          createControl(world, "customization-options", mode),
          fc
            .tuple(
              fc.record({ name }),
              optionFields(group, reference(world, "customization-groups", group.externalId), mode, false)
            )
            .map(([named, rest]) => ({ ...rest, ...named }))
        )
      ),
    (record: PlannedOption, mode) => {
      const stored = groupOf(world, record.group)
      if (mode === "prices")
        return mergeBodies(
          updateControl(world, "customization-options", record.externalId, mode),
          pricingUpdate(scopeOf(stored) === "option", record.priced)
        )
      const targets = allGroups.filter(
        (g) => g.externalId === stored.externalId || mode !== "catalog" || !record.priced || scopeOf(g) === "option"
      )
      return fc
        .constantFrom(...targets)
        .chain((group) =>
          mergeBodies(
            updateControl(world, "customization-options", record.externalId, mode),
            optionFields(
              group,
              group.externalId === stored.externalId
                ? maybe(reference(world, "customization-groups", group.externalId))
                : reference(world, "customization-groups", group.externalId),
              mode,
              record.priced
            )
          )
        )
    },
    "customization-options"
  )
}

// ---------------------------------------------------------------------------------------------------------
// Products

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

const products = (world: World): fc.Arbitrary<ValidWrite> =>
  createOrUpdate(
    world.records.products,
    (mode) => productCreate(world, mode),
    (p, mode) => productUpdate(world, p, mode),
    "products"
  )

/** Valid upsert bodies of `resource` against the world (the principal that wrote it sends them). */
export const validWrite = (world: World, resource: ResourceName): fc.Arbitrary<ValidWrite> => {
  switch (resource) {
    case "categories":
      return categories(world)
    case "collections":
    case "brands":
      return showcases(world, resource)
    case "customization-types":
      return types(world)
    case "customization-groups":
      return groups(world)
    case "customization-options":
      return options(world)
    case "products":
      return products(world)
  }
}
