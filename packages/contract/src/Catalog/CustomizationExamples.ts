/**
 * Examples of the customization resources (types, their groups, the groups' options): a record, upsert
 * bodies, the price view and the 422s particular to each.
 */
import type { CustomizationGroup, CustomizationOption, CustomizationType } from "@catalog-sync/core"
import { at, ids } from "../ExampleData.js"
import { issuesExample } from "../Examples.js"
import { type Body, missingName, type ResourceExamples } from "./ResourceExamples.js"

const typeRecord = {
  id: ids.type,
  external_id: "fabric",
  revision: 1,
  translations: { de: { name: "Stoff" } },
  created_at: at.created,
  updated_at: at.created,
  name: "Fabric",
  pricing_scope: "group",
  archived: false
} satisfies Body<typeof CustomizationType.CustomizationType>

const groupRecord = {
  id: ids.group,
  external_id: "book-velvet",
  revision: 1,
  translations: { de: { name: "Samt-Musterbuch" } },
  created_at: at.created,
  updated_at: at.created,
  name: "Velvet swatch book",
  type_id: ids.type,
  active: true,
  photo_enabled: true,
  pricing_mode: "percent",
  pricing_value: "30.00"
} satisfies Body<typeof CustomizationGroup.CustomizationGroup>

const optionRecord = {
  id: ids.option,
  external_id: "velvet-sage",
  revision: 1,
  translations: { de: { name: "Samt Salbei" } },
  created_at: at.created,
  updated_at: at.created,
  name: "Velvet Sage",
  group_id: ids.group,
  code: "VS-12",
  active: true,
  media_id: ids.swatch,
  pricing_mode: "none",
  pricing_value: null
} satisfies Body<typeof CustomizationOption.CustomizationOption>

export const customizationTypeExamples: ResourceExamples = {
  record: typeRecord,
  bodies: {
    create: {
      summary: "Create a fabric type (priced per swatch book)",
      value: {
        external_id: "fabric",
        name: "Fabric",
        pricing_scope: "group",
        translations: { de: { name: "Stoff" } }
      } satisfies Body<typeof CustomizationType.CustomizationTypeUpsert>
    },
    update: {
      summary: "Rename it: an update sends the revision it read",
      value: { external_id: "fabric", expected_revision: 1, name: "Upholstery fabric" } satisfies Body<
        typeof CustomizationType.CustomizationTypeUpsert
      >
    }
  },
  rules: {
    invalid_pricing: issuesExample(
      "Changing the pricing scope while the other level carries rules",
      "invalid_pricing",
      `$.pricing_scope: option-level pricing leaves groups without rules, but 1 group carries a pricing rule (${ids.group}); set pricing_mode none there first`,
      [
        {
          path: "$.pricing_scope",
          message: `option-level pricing leaves groups without rules, but 1 group carries a pricing rule (${ids.group}); set pricing_mode none there first`
        }
      ]
    ),
    missing_required_field: missingName("customization type")
  },
  writeScopes: ["catalog:write"]
}

export const customizationGroupExamples: ResourceExamples = {
  record: groupRecord,
  bodies: {
    create: {
      summary: "Create a swatch book with a 30% surcharge (mode combined)",
      value: {
        external_id: "book-velvet",
        mode: "combined",
        name: "Velvet swatch book",
        type_id: { external_id: "fabric" },
        active: true,
        photo_enabled: true,
        pricing_mode: "percent",
        pricing_value: "30",
        translations: { de: { name: "Samt-Musterbuch" } }
      } satisfies Body<typeof CustomizationGroup.CustomizationGroupUpsert>
    },
    update: {
      summary: "No photos for this book: an update sends the revision it read",
      value: { external_id: "book-velvet", expected_revision: 1, photo_enabled: false } satisfies Body<
        typeof CustomizationGroup.CustomizationGroupUpsert
      >
    }
  },
  prices: {
    id: ids.group,
    external_id: "book-velvet",
    revision: 1,
    updated_at: at.created,
    pricing_mode: "percent",
    pricing_value: "30.00"
  },
  rules: {
    invalid_pricing: issuesExample(
      "A percent rule without a value",
      "invalid_pricing",
      "$.pricing_value: pricing_mode percent needs a pricing_value",
      [{ path: "$.pricing_value", message: "pricing_mode percent needs a pricing_value" }]
    ),
    missing_required_field: issuesExample(
      "Creating without a type",
      "missing_required_field",
      "$.type_id: type_id is required to create a customization group",
      [{ path: "$.type_id", message: "type_id is required to create a customization group" }]
    )
  },
  writeScopes: ["catalog:write"]
}

export const customizationOptionExamples: ResourceExamples = {
  record: optionRecord,
  bodies: {
    create: {
      summary: "Create a fabric sample in its swatch book",
      value: {
        external_id: "velvet-sage",
        name: "Velvet Sage",
        group_id: { external_id: "book-velvet" },
        code: "VS-12",
        active: true,
        media_id: { external_id: "swatch-velvet-sage" },
        translations: { de: { name: "Samt Salbei" } }
      } satisfies Body<typeof CustomizationOption.CustomizationOptionUpsert>
    },
    update: {
      summary: "Change its code: an update sends the revision it read",
      value: { external_id: "velvet-sage", expected_revision: 1, code: "VS-12B" } satisfies Body<
        typeof CustomizationOption.CustomizationOptionUpsert
      >
    }
  },
  prices: {
    id: ids.option,
    external_id: "velvet-sage",
    revision: 1,
    updated_at: at.created,
    pricing_mode: "none",
    pricing_value: null
  },
  rules: {
    invalid_pricing: issuesExample(
      "A price rule on an option of a group-priced type",
      "invalid_pricing",
      "$.pricing_mode: the customization type prices at group level; a option carries pricing_mode none",
      [
        {
          path: "$.pricing_mode",
          message: "the customization type prices at group level; a option carries pricing_mode none"
        }
      ]
    ),
    missing_required_field: issuesExample(
      "Creating without a group",
      "missing_required_field",
      "$.group_id: group_id is required to create a customization option",
      [{ path: "$.group_id", message: "group_id is required to create a customization option" }]
    )
  },
  writeScopes: ["catalog:write"]
}
