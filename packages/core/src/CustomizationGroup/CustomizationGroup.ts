import { Effect, Schema } from "effect"
import { commonRecordFields, commonUpsertFields, Name, opt, PricingMode, strict } from "../Resources/CommonFields.js"
import { noBodyChecks } from "../internal/Resources/NoRules.js"
import { defineResource } from "../internal/Resources/ResourceDefinition.js"
import type { Translations } from "../Shared/Translations.js"
import { emptyIndex } from "../Catalog/StoredRecord.js"
import { Money } from "../internal/Shared/Decimal.js"
import { type RecordId, UUID } from "../Shared/Ids.js"
import { Reference } from "../Shared/Reference.js"
import {
  groupMoveViolations,
  normalizePricing,
  pricingViolations,
  scopeViolations
} from "../internal/CustomizationType/PricingRules.js"

/** POST /customization-groups/upsert body (spec 2.9): a swatch book. */
export const CustomizationGroupUpsert = Schema.Struct({
  ...commonUpsertFields,
  name: opt(Name),
  type_id: opt(Reference),
  active: opt(Schema.Boolean),
  photo_enabled: opt(Schema.Boolean),
  pricing_mode: opt(PricingMode),
  pricing_value: opt(Money)
}).annotate({ identifier: "CustomizationGroupUpsert", ...strict })
export type CustomizationGroupUpsert = typeof CustomizationGroupUpsert.Type

/** A customization group record as the API returns it. */
export const CustomizationGroup = Schema.Struct({
  ...commonRecordFields,
  name: Schema.String,
  type_id: UUID,
  active: Schema.Boolean,
  photo_enabled: Schema.Boolean,
  pricing_mode: opt(PricingMode),
  pricing_value: opt(Schema.NullOr(Schema.String))
}).annotate({ identifier: "CustomizationGroup" })

/** A customization group's document as stored: what its rules read. */
export type CustomizationGroupDocument = {
  readonly name: string
  readonly type_id: RecordId
  readonly active: boolean
  readonly photo_enabled: boolean
  readonly pricing_mode: typeof PricingMode.Type
  readonly pricing_value: string | null
  readonly translations: Translations
}

/** The customization groups resource: body and record schemas and rules. */
export const definition = defineResource<
  typeof CustomizationGroupUpsert,
  typeof CustomizationGroup,
  CustomizationGroupDocument
>({
  name: "customization-groups",
  label: "customization group",
  body: CustomizationGroupUpsert,
  record: CustomizationGroup,
  priceKeys: ["pricing_mode", "pricing_value"],
  costKeys: [],
  // These resources have no description; only the name is translated.
  translatable: ["name"],
  references: [{ path: ["type_id"], target: "customization-types" }],
  requiredOnCreate: ["name", "type_id"],
  defaults: {
    name: null,
    type_id: null,
    active: true,
    photo_enabled: false,
    pricing_mode: "none",
    pricing_value: null,
    translations: {}
  },
  mergers: {},
  checkBody: noBodyChecks,
  normalize: normalizePricing,
  validate: (document, context) =>
    Effect.gen(function* () {
      const scoped = yield* scopeViolations(document, "group", document.type_id, context)
      const moved = yield* groupMoveViolations(document, context)
      return [...pricingViolations(document), ...scoped, ...moved]
    }),
  index: (document) => ({ ...emptyIndex, parentId: document.type_id })
})

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly "customization-groups": CustomizationGroupDocument
  }
}
