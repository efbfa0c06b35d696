import { makeShowcase, type ShowcaseDocument } from "../internal/Collection/Showcase.js"

const brand = makeShowcase("brands", "brand", "Brand")

/** POST /brands/upsert body (spec 2.7). */
export const BrandUpsert = brand.upsert
export type BrandUpsert = typeof BrandUpsert.Type
/** A brand record as the API returns it. */
export const Brand = brand.record
/** A brand's document as stored. */
export type BrandDocument = ShowcaseDocument
/** The brands resource: body and record schemas and rules. */
export const definition = brand.definition

declare module "../internal/Resources/Documents.js" {
  interface Documents {
    readonly brands: BrandDocument
  }
}
