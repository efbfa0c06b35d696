/** Planned categories, collections, brands and customization types, groups and options. */
import * as fc from "fast-check"
import type { CompanySettings } from "../../Auth/Company.js"
import { defined, maybe, ref, translationsFor } from "./BodyParts.js"
import {
  planExternalId,
  type PlannedCategory,
  type PlannedGroup,
  type PlannedOption,
  type PlannedShowcase,
  type PlannedType
} from "./CatalogPlan.js"
import { description, money, nameText, text } from "./Values.js"

export const categoryRecord = (settings: CompanySettings, i: number, parent: number | null) =>
  fc
    .record({
      name: nameText(1, 40),
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

export const showcaseRecord = (settings: CompanySettings, resource: "collections" | "brands", i: number) =>
  fc
    .record({
      name: nameText(1, 40),
      description: maybe(description),
      translations: maybe(translationsFor(settings, resource))
    })
    .map((fields): PlannedShowcase => ({
      resource,
      externalId: planExternalId[resource](i),
      body: defined({ external_id: planExternalId[resource](i), ...fields })
    }))

export const typeRecord = (settings: CompanySettings, i: number, scope: "group" | "option") =>
  fc
    .record({ name: nameText(1, 40), translations: maybe(translationsFor(settings, "customization-types")) })
    .map((fields): PlannedType => ({
      resource: "customization-types",
      externalId: planExternalId["customization-types"](i),
      scope,
      body: defined({ external_id: planExternalId["customization-types"](i), ...fields, pricing_scope: scope })
    }))

/** A pricing rule: a mode other than none and its value. */
const pricingRule = fc.record({ pricing_mode: fc.constantFrom("percent", "fixed"), pricing_value: money })

export const groupRecord = (settings: CompanySettings, i: number, type: number, scope: "group" | "option") =>
  fc
    .record({
      name: nameText(1, 40),
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

export const optionRecord = (settings: CompanySettings, i: number, group: number, scope: "group" | "option") =>
  fc
    .record({
      name: nameText(1, 40),
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
