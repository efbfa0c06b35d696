import { makeShowcase } from "../internal/Collection/Showcase.js"

const collection = makeShowcase("collections", "collection", "Collection")

/** POST /collections/upsert body (spec 2.7). */
export const CollectionUpsert = collection.upsert
export type CollectionUpsert = typeof CollectionUpsert.Type
export const Collection = collection.record
export const definition = collection.definition
