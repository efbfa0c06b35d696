import { Schema } from "effect"
import { ExternalId, UUID, Uuid } from "../Shared/Ids.js"
import { matching, NameText, Text } from "../internal/Shared/Text.js"
import { Translations, TranslationsInput } from "../Shared/Translations.js"

/** An optional key that, when present, must hold a value of `schema` (no `undefined`). */
export const opt = <S extends Schema.Constraint>(schema: S): Schema.optionalKey<S> => Schema.optionalKey(schema)

const isInteger = Schema.makeFilter((n: number) => Number.isInteger(n), {
  expected: "an integer",
  toJsonSchema: () => ({ type: "integer" }),
  arbitraryConstraint: { number: "integer" }
})

/**
 * A whole number, as the API has always taken one: any integer a JSON number holds (Effect 4's `Int` takes
 * safe integers only, and says so in its JSON Schema). Over `Finite`, which JSON Schema renders as a
 * number (`Number` also admits the strings "NaN" and "Infinity" of Effect's JSON codec).
 */
export const Int = Schema.Finite.check(isInteger).annotate({
  identifier: "Int",
  title: "int",
  description: "an integer"
})

/** A whole number of at least 0; a negative number is reported as such, whole or not (Effect 3's order). */
export const NonNegativeInt = Schema.Finite.check(
  Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number" }),
  isInteger
).annotate({ identifier: "NonNegativeInt", title: "int", description: "an integer" })

/** Which fields an upsert writes: the catalog's, the prices', or both. */
export const UpsertMode = Schema.Literals(["catalog", "prices", "combined"])
export type UpsertMode = typeof UpsertMode.Type

/** A record name: 1-200 characters, one line shown as it reads (no control or bidi override characters). */
export const Name = NameText(1, 200)

export { nameMessage, refusedInName } from "../internal/Shared/Text.js"

/** A description: up to 4000 characters. */
export const Description = Text(0, 4000)

/** How a customization changes a price. */
export const PricingMode = Schema.Literals(["none", "percent", "fixed"])

/** Fields every upsert body accepts (spec 2.3). */
export const commonUpsertFields = {
  external_id: ExternalId,
  target_id: opt(Uuid),
  expected_revision: opt(NonNegativeInt),
  mode: opt(UpsertMode),
  currency: opt(Schema.String.check(matching(/^[A-Z]{3}$/, "must be a 3-letter currency code"))),
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
 * first failing locations of a body that fails. Effect 4 reads no parse options from a schema's
 * annotations: `BoundedDecode` honours this one itself, and an HttpApi endpoint sets its own
 * (`HttpApi.PayloadParseOptions`).
 */
export const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** Fields every record response carries. */
export const commonRecordFields = {
  id: UUID,
  external_id: Schema.NullOr(Schema.String).annotate({
    description: "The caller's connection mapping of this record, or null when the connection has none."
  }),
  revision: Int.annotate({ description: "Send it back as expected_revision to update." }),
  translations: Translations,
  created_at: Schema.String,
  updated_at: Schema.String
} as const
