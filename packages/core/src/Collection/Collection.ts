import { makeShowcase, type ShowcaseDocument } from "../internal/Collection/Showcase.js"

const collection = makeShowcase("collections", "collection", "Collection")

/** POST /collections/upsert body (spec 2.7). */
export const CollectionUpsert = collection.upsert
export type CollectionUpsert = typeof CollectionUpsert.Type
/** A collection record as the API returns it. */
export const Collection = collection.record
/** A collection's document as stored. */
export type CollectionDocument = ShowcaseDocument
/** The collections resource: body and record schemas and rules. */
export const definition = collection.definition

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly collections: CollectionDocument
  }
}
