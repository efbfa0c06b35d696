import { Schema } from "effect"
import { commonRecordFields, commonUpsertFields, Description, Name, opt, strict } from "../../Resources/CommonFields.js"
import { noBodyChecks, noViolations } from "../Resources/NoRules.js"
import { defineResource } from "../Resources/ResourceDefinition.js"
import type { ResourceName } from "../../Resources/Resource.js"
import { emptyIndex } from "../../Catalog/StoredRecord.js"
import { type RecordId, UUID } from "../../Shared/Ids.js"
import { Reference } from "../../Shared/Reference.js"
import type { Translations } from "../../Shared/Translations.js"

/** A collection's or brand's document as stored. */
export type ShowcaseDocument = {
  readonly name: string
  readonly description: string | null
  readonly image_id: RecordId | null
  readonly translations: Translations
}

/**
 * Collections and brands share one shape (spec 2.7): a name shared across languages, a translatable
 * description and an image.
 */
export const makeShowcase = (name: ResourceName, label: string, identifier: string) => {
  const upsert = Schema.Struct({
    ...commonUpsertFields,
    name: opt(Name),
    description: opt(Description),
    image_id: opt(Schema.NullOr(Reference))
  }).annotate({ identifier: `${identifier}Upsert`, ...strict })
  const record = Schema.Struct({
    ...commonRecordFields,
    name: Schema.String,
    description: Schema.NullOr(Schema.String),
    image_id: Schema.NullOr(UUID)
  }).annotate({ identifier })
  const definition = defineResource<typeof upsert, typeof record, ShowcaseDocument>({
    name,
    label,
    body: upsert,
    record,
    priceKeys: [],
    costKeys: [],
    translatable: ["description"],
    references: [{ path: ["image_id"], target: "media" }],
    requiredOnCreate: ["name"],
    defaults: { name: null, description: null, image_id: null, translations: {} },
    mergers: {},
    checkBody: noBodyChecks,
    normalize: (document) => document,
    validate: noViolations,
    index: () => emptyIndex
  })
  return { upsert, record, definition }
}
