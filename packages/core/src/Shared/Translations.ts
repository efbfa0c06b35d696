import { Schema } from "effect"
import { nameMessage, refusedInName, Text } from "../internal/Shared/Text.js"

/** A language code such as `en` or `pt-BR`. */
export const LanguageCode = Schema.String.pipe(
  Schema.pattern(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, { message: () => "must be a language code such as en or pt-BR" }),
  Schema.annotations({ identifier: "LanguageCode" })
)

/** A record's texts in one language. */
export const TranslationEntry = Schema.Struct({
  name: Schema.optionalWith(Text(1, 200), { exact: true }),
  description: Schema.optionalWith(Text(0, 4000), { exact: true })
}).annotations({ identifier: "TranslationEntry" })
export type TranslationEntry = typeof TranslationEntry.Type

/** Keyed by enabled language code; omitted entries are preserved on update. */
export const Translations = Schema.Record({ key: LanguageCode, value: TranslationEntry }).annotations({
  identifier: "Translations"
})
export type Translations = typeof Translations.Type

/**
 * Translations as a body sends them: each name must also be a name (`NameText`). Records keep the looser
 * `Translations`, so that a name stored before the rule still reads back through a client's schema.
 */
export const TranslationsInput = Translations.pipe(
  Schema.filter(
    (translations) =>
      Object.entries(translations).flatMap(([language, entry]) =>
        entry.name !== undefined && refusedInName(entry.name) !== undefined
          ? [{ path: [language, "name"], message: nameMessage }]
          : []
      ),
    { jsonSchema: {} }
  )
)

/** Merges sent translations into stored ones: per language, per key; omitted entries stay. */
export const merge = (stored: Translations, sent: Translations): Translations => {
  const out: Record<string, TranslationEntry> = { ...stored }
  for (const [language, entry] of Object.entries(sent)) out[language] = { ...out[language], ...entry }
  return out
}
