import { Effect, Schema } from "effect"
import { commonRecordFields, commonUpsertFields, Name, opt, PricingMode, strict } from "../Resources/CommonFields.js"
import { noBodyChecks } from "../internal/Resources/NoRules.js"
import { defineResource } from "../internal/Resources/ResourceDefinition.js"
import type { Translations } from "../Shared/Translations.js"
import { emptyIndex } from "../Catalog/StoredRecord.js"
import { Money } from "../internal/Shared/Decimal.js"
import { type RecordId, UUID } from "../Shared/Ids.js"
import { Reference } from "../Shared/Reference.js"
import { Text } from "../internal/Shared/Text.js"
import { normalizePricing, pricingViolations, scopeViolations } from "../internal/CustomizationType/PricingRules.js"

/** POST /customization-options/upsert body (spec 2.10): a fabric sample or other option. */
export const CustomizationOptionUpsert = Schema.Struct({
  ...commonUpsertFields,
  name: opt(Name),
  group_id: opt(Reference),
  code: opt(Text(0, 100)),
  active: opt(Schema.Boolean),
  media_id: opt(Schema.NullOr(Reference)),
  pricing_mode: opt(PricingMode),
  pricing_value: opt(Money)
}).annotate({ identifier: "CustomizationOptionUpsert", ...strict })
export type CustomizationOptionUpsert = typeof CustomizationOptionUpsert.Type

/** A customization option record as the API returns it. */
export const CustomizationOption = Schema.Struct({
  ...commonRecordFields,
  name: Schema.String,
  group_id: UUID,
  code: Schema.NullOr(Schema.String),
  active: Schema.Boolean,
  media_id: Schema.NullOr(UUID),
  pricing_mode: opt(PricingMode),
  pricing_value: opt(Schema.NullOr(Schema.String))
}).annotate({ identifier: "CustomizationOption" })

/** A customization option's document as stored: what its rules read. */
export type CustomizationOptionDocument = {
  readonly name: string
  readonly group_id: RecordId
  readonly code: string | null
  readonly active: boolean
  readonly media_id: RecordId | null
  readonly pricing_mode: typeof PricingMode.Type
  readonly pricing_value: string | null
  readonly translations: Translations
}

/** The customization options resource: body and record schemas and rules. */
export const definition = defineResource<
  typeof CustomizationOptionUpsert,
  typeof CustomizationOption,
  CustomizationOptionDocument
>({
  name: "customization-options",
  label: "customization option",
  body: CustomizationOptionUpsert,
  record: CustomizationOption,
  priceKeys: ["pricing_mode", "pricing_value"],
  costKeys: [],
  // These resources have no description; only the name is translated.
  translatable: ["name"],
  references: [
    { path: ["group_id"], target: "customization-groups" },
    { path: ["media_id"], target: "media" }
  ],
  requiredOnCreate: ["name", "group_id"],
  defaults: {
    name: null,
    group_id: null,
    code: null,
    active: true,
    media_id: null,
    pricing_mode: "none",
    pricing_value: null,
    translations: {}
  },
  mergers: {},
  checkBody: noBodyChecks,
  normalize: normalizePricing,
  validate: (document, context) =>
    Effect.gen(function* () {
      const pricing = pricingViolations(document)
      if (document.pricing_mode === "none") return pricing
      const [group] = yield* context.getMany("customization-groups", [document.group_id])
      if (group === undefined) return pricing
      return [...pricing, ...(yield* scopeViolations(document, "option", group.data.type_id, context))]
    }),
  index: (document) => ({ ...emptyIndex, parentId: document.group_id })
})

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly "customization-options": CustomizationOptionDocument
  }
}
