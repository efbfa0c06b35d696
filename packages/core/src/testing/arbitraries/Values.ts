/**
 * Arbitraries of the values bodies are made of: text counted in characters, decimal strings in every form
 * the API accepts, references and translations. Pattern-only values come from their Schemas' patterns
 * (`matching`); text and the coefficient are hand-tuned so that runs reach the limits and shrink to
 * short ASCII.
 */
import type { SchemaAST } from "effect"
import * as fc from "fast-check"
import { Dimension, Money, Quantity } from "../../internal/Shared/Decimal.js"
import { LanguageCode } from "../../Shared/Translations.js"

/**
 * One character: mostly lowercase letters (what a counterexample shrinks to), then other ASCII, controls
 * other than U+0000, the rest of the Basic Multilingual Plane without surrogates, and astral characters
 * (one character, two UTF-16 units).
 */
export const character: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x61, max: 0x7a }) },
    { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x01, max: 0x1f }) },
    { weight: 2, arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) }
  )
  .map((code) => String.fromCodePoint(code))

/**
 * The strings a pattern-only Schema accepts, drawn from its `isPattern` RegExp. Effect 4's schema-derived
 * arbitraries are its own `Arbitrary`, not fast-check's, so the pattern is read off the Schema's checks.
 */
const matching = (schema: { readonly ast: SchemaAST.AST }): fc.Arbitrary<string> => {
  const patterns = (checks: ReadonlyArray<SchemaAST.Check<never>>): ReadonlyArray<RegExp> =>
    checks.flatMap((check) =>
      check._tag === "FilterGroup"
        ? patterns(check.checks)
        : (check.annotations?.arbitraryConstraint?.patterns ?? []).map(({ flags, source }) => new RegExp(source, flags))
    )
  const [pattern, ...others] = patterns(schema.ast.checks ?? [])
  if (pattern === undefined) throw new Error("matching: the schema has no pattern")
  const drawn = fc.stringMatching(pattern)
  return others.length === 0 ? drawn : drawn.filter((s) => others.every((other) => other.test(s)))
}

/** Text of `min` to `max` characters (code points, as the API counts them): usually short, sometimes exactly `max`. */
export const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .oneof(
      { weight: 6, arbitrary: fc.array(character, { minLength: min, maxLength: Math.min(max, min + 12) }) },
      { weight: 1, arbitrary: fc.array(character, { minLength: max, maxLength: max }) }
    )
    .map((characters) => characters.join(""))

/** Whether a character may be in a name (CommonFields.Name): no control, line separator or bidi override. */
const inName = (code: number) =>
  code > 0x1f &&
  !(code >= 0x7f && code <= 0x9f) &&
  code !== 0x2028 &&
  code !== 0x2029 &&
  !(code >= 0x202a && code <= 0x202e) &&
  !(code >= 0x2066 && code <= 0x2069)

/** One character of a name: as `character` without those a name may not hold, and sometimes a direction mark. */
export const nameCharacter: fc.Arbitrary<string> = fc.oneof(
  { weight: 30, arbitrary: character.filter((c) => inName(c.codePointAt(0)!)) },
  { weight: 1, arbitrary: fc.constantFrom("\u200e", "\u200f") }
)

/** Name text of `min` to `max` characters, as `text` draws them. */
export const nameText = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .oneof(
      { weight: 6, arbitrary: fc.array(nameCharacter, { minLength: min, maxLength: Math.min(max, min + 12) }) },
      { weight: 1, arbitrary: fc.array(nameCharacter, { minLength: max, maxLength: max }) }
    )
    .map((characters) => characters.join(""))

/** A record name: 1-200 characters. */
export const name = nameText(1, 200)

/** An external id: 1-200 characters. */
export const externalId = text(1, 200)

/** A description: 0-4000 characters. */
export const description = text(0, 4000)

/** Any uuid. */
export const uuid: fc.Arbitrary<string> = fc.uuid()

/** A money string in any accepted form: up to 16 integer digits (leading zeros too), up to 2 decimals. */
export const money: fc.Arbitrary<string> = matching(Money)

/** A dimension, weight or volume: up to 16 integer digits and 6 decimals. */
export const dimension: fc.Arbitrary<string> = matching(Dimension)

/** A stock quantity in any accepted form: up to 9 integer digits and 3 decimals. */
export const quantity: fc.Arbitrary<string> = matching(Quantity)

/** A whole stock quantity, sometimes written with a zero fraction ("12.000"), which counts as whole. */
export const wholeQuantity: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom("", "", ".0", ".000"))
  .map(([n, zeros]) => `${n}${zeros}`)

/** A quantity with a fraction other than zero ("2.5"), which piece units refuse. */
export const fractionalQuantity: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 1, max: 999 }))
  .map(([n, f]) => `${n}.${String(f).padStart(3, "0").replace(/0+$/, "")}`)

/** A pricing coefficient: 0 < c <= 100 with up to 4 decimals, in any accepted form ("0.30", "007", "100.0000"). */
export const coefficient: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 4 }), fc.constantFrom("", "", "0"))
  .map(([tenThousandths, extra, zeros]) => {
    const whole = Math.floor(tenThousandths / 10_000)
    const fraction = String(tenThousandths % 10_000)
      .padStart(4, "0")
      .replace(/0+$/, "")
    const width = Math.min(4, fraction.length + extra)
    return `${zeros}${whole}${width === 0 ? "" : `.${fraction.padEnd(width, "0")}`}`
  })

/**
 * The same decimal value in another accepted form: leading zeros, a fraction padded or trimmed within
 * `maxFraction` digits ("20.00" -> "20", "020.0"). Compared by value, the API treats them as equal.
 */
export const sameValue = (value: string, maxFraction: number, maxInteger = 16): fc.Arbitrary<string> => {
  const [integer = "0", fraction = ""] = value.split(".")
  const digits = fraction.replace(/0+$/, "")
  const trimmed = integer.replace(/^0+(?=\d)/, "")
  return fc
    .tuple(
      fc.integer({ min: 0, max: Math.max(0, Math.min(2, maxInteger - trimmed.length)) }),
      fc.integer({ min: digits.length, max: maxFraction })
    )
    .map(([zeros, width]) => {
      const head = `${"0".repeat(zeros)}${trimmed}`
      return width === 0 ? head : `${head}.${digits.padEnd(width, "0")}`
    })
}

/** Language codes as companies configure them: common ones, and others the pattern allows. */
export const languageCode: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("en", "de", "fr", "it", "es", "nl", "pl", "pt-BR", "zh-Hans", "fil") },
  { weight: 1, arbitrary: matching(LanguageCode) }
)

/** A translation entry with some of `keys` (each within its limits), never empty. */
export const translationEntry = (keys: ReadonlyArray<"name" | "description">) =>
  fc
    .subarray([...keys], { minLength: 1 })
    .chain((chosen) => fc.record(Object.fromEntries(chosen.map((key) => [key, key === "name" ? name : text(0, 4000)]))))

/** Translations into some of `languages`, each entry with some of `keys`. */
export const translations = (
  languages: ReadonlyArray<string>,
  keys: ReadonlyArray<"name" | "description">
): fc.Arbitrary<Readonly<Record<string, Readonly<Record<string, string>>>>> =>
  languages.length === 0 || keys.length === 0
    ? fc.constant({})
    : fc
        .subarray([...languages], { minLength: 1 })
        .chain((chosen) =>
          fc.tuple(...chosen.map((language) => translationEntry(keys).map((entry) => [language, entry] as const)))
        )
        .map((entries) => Object.fromEntries(entries))
