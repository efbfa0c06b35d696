import { Schema } from "effect"
import { matching, nameMessage, refusedInName, Text } from "../internal/Shared/Text.js"

/** A language code such as `en` or `pt-BR`. */
export const LanguageCode = Schema.String.check(
  matching(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, "must be a language code such as en or pt-BR")
).annotate({ identifier: "LanguageCode" })

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
