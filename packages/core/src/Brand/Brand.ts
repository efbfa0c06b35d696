import { makeShowcase } from "../internal/Collection/Showcase.js"

const brand = makeShowcase("brands", "brand", "Brand")

/** POST /brands/upsert body (spec 2.7). */
export const BrandUpsert = brand.upsert
export type BrandUpsert = typeof BrandUpsert.Type
export const Brand = brand.record
export const definition = brand.definition
