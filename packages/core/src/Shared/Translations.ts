import { Schema } from "effect"
import { matching, nameMessage, refusedInName, Text } from "../internal/Shared/Text.js"

/** A language code such as `en` or `pt-BR`. */
export const LanguageCode = Schema.String.check(
  matching(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, "must be a language code such as en or pt-BR")
).annotate({ identifier: "LanguageCode" })

const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })

/** Whether a code names a language (`en`, `de`, `pt-BR`: its first part is a language ICU knows), not a typo. */
export const isKnownLanguage = (code: string): boolean => {
  if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(code)) return false
  try {
    return languageNames.of(code.split("-")[0]!) !== undefined
  } catch {
    return false
  }
}

/**
 * A language a company enables: a `LanguageCode` whose language is known, so that `xx` is not saved as a
 * language. Stored companies and translation keys keep the shape check alone.
 */
export const KnownLanguageCode = LanguageCode.check(
  Schema.makeFilter((code: string) =>
    isKnownLanguage(code) ? undefined : `must be a language code such as en, de or pt-BR; "${code}" is not one`
  )
)

/** A record's texts in one language. */
export const TranslationEntry = Schema.Struct({
  name: Schema.optionalKey(Text(1, 200)),
  description: Schema.optionalKey(Text(0, 4000))
}).annotate({ identifier: "TranslationEntry" })
export type TranslationEntry = typeof TranslationEntry.Type

/** Keyed by enabled language code; omitted entries are preserved on update. */
export const Translations = Schema.Record(LanguageCode, TranslationEntry).annotate({
  identifier: "Translations"
})
export type Translations = typeof Translations.Type

/**
 * Translations as a body sends them: each name must also be a name (`NameText`). Records keep the looser
 * `Translations`, so that a name stored before the rule still reads back through a client's schema.
 */
export const TranslationsInput = Translations.pipe(
  // Decoded from `Translations` itself, so that the OpenAPI document refers to the `Translations`
  // component (a check on it would make a schema of its own, written inline).
  Schema.decodeTo(
    Schema.toType(Translations).check(
      Schema.makeFilter(
        (translations: Translations) =>
          Object.entries(translations).flatMap(([language, entry]) =>
            entry.name !== undefined && refusedInName(entry.name) !== undefined
              ? [{ path: [language, "name"], issue: nameMessage }]
              : []
          ),
        { toJsonSchema: () => ({}) }
      )
    )
  )
)

/** Merges sent translations into stored ones: per language, per key; omitted entries stay. */
export const merge = (stored: Translations, sent: Translations): Translations => {
  const out: Record<string, TranslationEntry> = { ...stored }
  for (const [language, entry] of Object.entries(sent)) out[language] = { ...out[language], ...entry }
  return out
}
