/**
 * Valid upsert bodies of every resource against a written catalog (a `World`): creates in catalog and
 * combined mode, updates of the world's records in catalog, combined and prices mode. Each body is one
 * the use case accepts as the world stands: references resolve (by uuid in any letter case or by
 * `{external_id}`), translations use the company's other languages and the keys the resource translates,
 * tax rates are configured ones, pricing rules sit at the level their type prices, selection fields link
 * groups of their own type, bundles group live single products, and an active product passes sale
 * validation. Rules that span fields are reasoned on the record as the update leaves it.
 */
import * as fc from "fast-check"
import type { ResourceName } from "../../Resources/Resource.js"
import type { World } from "../World.js"
import { defined } from "./BodyParts.js"
import type { PlannedCategory, PlannedGroup, PlannedOption, PlannedType } from "./CatalogPlan.js"
import { description, money, name, text } from "./Values.js"
import { products } from "./ValidProducts.js"
import {
  type Body,
  createControl,
  createOrUpdate,
  maybe,
  mergeBodies,
  type Mode,
  noRecords,
  reference,
  referenceTo,
  some,
  updateControl,
  type ValidWrite
} from "./Writes.js"

export { reference, type ValidWrite } from "./Writes.js"

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
