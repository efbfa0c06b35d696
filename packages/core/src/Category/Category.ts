import { Effect, Schema } from "effect"
import { commonRecordFields, commonUpsertFields, Description, Name, opt, strict } from "../Resources/CommonFields.js"
import { noBodyChecks } from "../internal/Resources/NoRules.js"
import { defineResource } from "../internal/Resources/ResourceDefinition.js"
import { emptyIndex } from "../Catalog/StoredRecord.js"
import { type RecordId, UUID } from "../Shared/Ids.js"
import { Reference } from "../Shared/Reference.js"
import type { Translations } from "../Shared/Translations.js"

/** POST /categories/upsert body (spec 2.6). */
export const CategoryUpsert = Schema.Struct({
  ...commonUpsertFields,
  name: opt(Name),
  parent_id: opt(Schema.NullOr(Reference)),
  description: opt(Description),
  image_id: opt(Schema.NullOr(Reference))
}).annotate({ identifier: "CategoryUpsert", ...strict })
export type CategoryUpsert = typeof CategoryUpsert.Type

/** A category record as the API returns it. */
export const Category = Schema.Struct({
  ...commonRecordFields,
  name: Schema.String,
  parent_id: Schema.NullOr(UUID),
  description: Schema.NullOr(Schema.String),
  image_id: Schema.NullOr(UUID)
}).annotate({ identifier: "Category" })

/** A category's document as stored: what its rules read. */
export type CategoryDocument = {
  readonly name: string
  readonly parent_id: RecordId | null
  readonly description: string | null
  readonly image_id: RecordId | null
  readonly translations: Translations
}

/** Deepest category tree the cycle check walks; deeper chains are refused as if cyclic. */
export const maxDepth = 100

/**
 * A category may not be its own ancestor. The chain is walked from the new parent upwards; meeting the
 * record itself, or a chain deeper than `maxDepth`, is refused.
 */
export const cycleViolations = (
  id: RecordId,
  parentId: RecordId | null,
  ancestorsOfParent: ReadonlyArray<RecordId>
) => {
  if (parentId === null) return []
  const path = "$.parent_id"
  if (parentId === id)
    return [{ reason: "category_cycle" as const, issue: { path, message: "a category cannot be its own parent" } }]
  if (ancestorsOfParent.includes(id)) {
    return [
      { reason: "category_cycle" as const, issue: { path, message: "the parent is a descendant of this category" } }
    ]
  }
  if (ancestorsOfParent.length >= maxDepth) {
    return [
      {
        reason: "category_cycle" as const,
        issue: { path, message: `category trees are limited to ${maxDepth} levels` }
      }
    ]
  }
  return []
}

/** The categories resource: body and record schemas and rules. */
export const definition = defineResource<typeof CategoryUpsert, typeof Category, CategoryDocument>({
  name: "categories",
  label: "category",
  body: CategoryUpsert,
  record: Category,
  priceKeys: [],
  costKeys: [],
  translatable: ["name", "description"],
  references: [
    { path: ["parent_id"], target: "categories" },
    { path: ["image_id"], target: "media" }
  ],
  requiredOnCreate: ["name"],
  defaults: { name: null, parent_id: null, description: null, image_id: null, translations: {} },
  mergers: {},
  checkBody: noBodyChecks,
  normalize: (document) => document,
  validate: (document, context) => {
    const parentId = document.parent_id
    if (parentId === null || parentId === context.recordId) {
      return Effect.succeed(cycleViolations(context.recordId, parentId, []))
    }
    return context.ancestors(parentId).pipe(Effect.map((chain) => cycleViolations(context.recordId, parentId, chain)))
  },
  index: (document) => ({ ...emptyIndex, parentId: document.parent_id })
})

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly categories: CategoryDocument
  }
}
