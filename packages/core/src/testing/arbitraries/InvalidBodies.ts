/**
 * Invalid upsert bodies against a written catalog (a `World`), each labelled with the rule it breaks and
 * what the use case answers: the error `code` and the JSON path among the error's issues (null for an
 * error without issues, such as `revision_conflict`). Each body breaks exactly one rule: it is a valid
 * body (see `ValidBodies`) with one change, so the answer does not depend on the order of the checks.
 */
import * as fc from "fast-check"
import { codes as currencyCodes } from "../../Shared/Currency.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { World } from "../World.js"
import { defined } from "./BodyParts.js"
import { productRules } from "./InvalidProducts.js"
import { schemaRules } from "./InvalidShapes.js"
import { base, catalogMode, creates, dangling, type InvalidWrite, label, notPrices, without } from "./Labels.js"
import { reference } from "./ValidBodies.js"
import { languageCode, money, name, uuid } from "./Values.js"

export { type InvalidWrite, isWithin } from "./Labels.js"

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
