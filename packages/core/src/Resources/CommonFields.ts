import { Schema } from "effect"
import { ExternalId, Uuid } from "../Shared/Ids.js"
import { NameText, Text } from "../internal/Shared/Text.js"
import { Translations, TranslationsInput } from "../Shared/Translations.js"

/** An optional key that, when present, must hold a value of `schema` (no `undefined`). */
export const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** Which fields an upsert writes: the catalog's, the prices', or both. */
export const UpsertMode = Schema.Literal("catalog", "prices", "combined")
export type UpsertMode = typeof UpsertMode.Type

/** A record name: 1-200 characters, one line shown as it reads (no control or bidi override characters). */
export const Name = NameText(1, 200)

export { nameMessage, refusedInName } from "../internal/Shared/Text.js"

/** A description: up to 4000 characters. */
export const Description = Text(0, 4000)

/** How a customization changes a price. */
export const PricingMode = Schema.Literal("none", "percent", "fixed")

/** Fields every upsert body accepts (spec 2.3). */
export const commonUpsertFields = {
  external_id: ExternalId,
  target_id: opt(Uuid),
  expected_revision: opt(Schema.NonNegativeInt),
  mode: opt(UpsertMode),
  currency: opt(
    Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be a 3-letter currency code" }))
  ),
  translations: opt(TranslationsInput)
} as const

/** The common fields as every resource's body schema decodes them. */
export type CommonUpsertFields = Schema.Struct.Type<typeof commonUpsertFields>

/** Keys of the common fields: they steer the write and are not stored in the record document. */
export const controlKeys: ReadonlySet<string> = new Set([
  "external_id",
  "target_id",
  "expected_revision",
  "mode",
  "currency"
])

/**
 * Strict decoding: unknown keys are errors at every depth. A decode stops at its first failure
 * (`errors: "all"` would collect every failure of a body, however many); `Decode.decodeStrict` lists the
 * first failing locations of a body that fails.
 */
export const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** Fields every record response carries. */
export const commonRecordFields = {
  id: Schema.UUID,
  external_id: Schema.NullOr(Schema.String).annotations({
    description: "The caller's connection mapping of this record, or null when the connection has none."
  }),
  revision: Schema.Int.annotations({ description: "Send it back as expected_revision to update." }),
  translations: Translations,
  created_at: Schema.String,
  updated_at: Schema.String
} as const
