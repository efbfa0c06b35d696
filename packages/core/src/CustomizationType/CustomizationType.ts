import { Schema } from "effect"
import { commonRecordFields, commonUpsertFields, Name, opt, strict } from "../Resources/CommonFields.js"
import { noBodyChecks } from "../internal/Resources/NoRules.js"
import { typeScopeChangeViolations } from "../internal/CustomizationType/PricingRules.js"
import { defineResource } from "../internal/Resources/ResourceDefinition.js"
import type { Translations } from "../Shared/Translations.js"
import { emptyIndex } from "../Catalog/StoredRecord.js"

/** Whether a type's prices are set on its groups or on its options. */
export const PricingScope = Schema.Literals(["group", "option"])

/** POST /customization-types/upsert body (spec 2.8). */
export const CustomizationTypeUpsert = Schema.Struct({
  ...commonUpsertFields,
  name: opt(Name),
  pricing_scope: opt(PricingScope),
  archived: opt(Schema.Boolean)
}).annotate({ identifier: "CustomizationTypeUpsert", ...strict })
export type CustomizationTypeUpsert = typeof CustomizationTypeUpsert.Type

/** A customization type record as the API returns it. */
export const CustomizationType = Schema.Struct({
  ...commonRecordFields,
  name: Schema.String,
  pricing_scope: PricingScope,
  archived: Schema.Boolean
}).annotate({ identifier: "CustomizationType" })

/** A customization type's document as stored: what its rules read. */
export type CustomizationTypeDocument = {
  readonly name: string
  readonly pricing_scope: typeof PricingScope.Type
  readonly archived: boolean
  readonly translations: Translations
}

/** The customization types resource: body and record schemas and rules. */
export const definition = defineResource<
  typeof CustomizationTypeUpsert,
  typeof CustomizationType,
  CustomizationTypeDocument
>({
  name: "customization-types",
  label: "customization type",
  body: CustomizationTypeUpsert,
  record: CustomizationType,
  priceKeys: [],
  costKeys: [],
  // These resources have no description; only the name is translated.
  translatable: ["name"],
  references: [],
  requiredOnCreate: ["name"],
  defaults: { name: null, pricing_scope: "group", archived: false, translations: {} },
  mergers: {},
  checkBody: noBodyChecks,
  normalize: (document) => document,
  validate: typeScopeChangeViolations,
  index: () => emptyIndex
})

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly "customization-types": CustomizationTypeDocument
  }
}
