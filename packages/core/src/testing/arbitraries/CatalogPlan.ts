/**
 * What a catalog plan is: its records (each an upsert body whose references are `Ref`s to other planned
 * records), how many of each kind it may hold and the readable external ids it gives them.
 */
import * as fc from "fast-check"
import type { CompanySettings } from "../../Auth/Company.js"
import type { ProductUnit } from "../../Product/Product.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"

/**
 * A reference to a planned record by its external id. Written, it is the record's uuid when `byId` and
 * the uuid is known (the record was written before), else `{external_id}`.
 */
export class Ref {
  constructor(
    readonly resource: ResourceName,
    readonly externalId: string,
    readonly byId: boolean
  ) {}
  toString(): string {
    return `${this.byId ? "id" : "ref"}(${this.resource} ${JSON.stringify(this.externalId)})`
  }
  [fc.toStringMethod](): string {
    return this.toString()
  }
}

/** Looks a planned record's uuid up: known once the record was written. */
export type IdOf = (resource: ResourceName, externalId: string) => string | undefined

/** A body with each `Ref` replaced by what a client sends for it: the record's uuid, or `{external_id}`. */
export const materialize = (body: Document, idOf: IdOf): Document => {
  const walk = (value: unknown): unknown => {
    if (value instanceof Ref) {
      const id = value.byId ? idOf(value.resource, value.externalId) : undefined
      return id ?? { external_id: value.externalId }
    }
    if (Array.isArray(value)) return value.map(walk)
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]))
    return value
  }
  return walk(body) as Document
}

/** A selection field of a planned product. */
export interface PlannedField {
  readonly externalId: string
  /** External id of the field's customization type. */
  readonly type: string
  /** External ids of its groups, all of that type. */
  readonly groups: ReadonlyArray<string>
}

interface Planned<Name extends ResourceName> {
  readonly resource: Name
  readonly externalId: string
  /** The upsert body, its references as `Ref`s (see `materialize`). */
  readonly body: Document
}

/** A planned category and its parent. */
export type PlannedCategory = Planned<"categories"> & { readonly parent: string | null }
/** A planned collection or brand. */
export type PlannedShowcase = Planned<"collections" | "brands">
/** A planned customization type and its pricing scope. */
export type PlannedType = Planned<"customization-types"> & { readonly scope: "group" | "option" }
/** A planned customization group, its type and whether it is priced. */
export type PlannedGroup = Planned<"customization-groups"> & { readonly type: string; readonly priced: boolean }
/** A planned customization option, its group and whether it is priced. */
export type PlannedOption = Planned<"customization-options"> & { readonly group: string; readonly priced: boolean }
/** A planned product and what it references. */
export type PlannedProduct = Planned<"products"> & {
  readonly kind: "single" | "bundle"
  readonly categories: ReadonlyArray<string>
  /** External ids of a bundle's component singles. */
  readonly components: ReadonlyArray<string>
  readonly fields: ReadonlyArray<PlannedField>
  readonly active: boolean
  /** Whether the product has a price. */
  readonly priced: boolean
  readonly unit: typeof ProductUnit.Type | null
}

/** Any planned record. */
export type PlannedRecord =
  PlannedCategory | PlannedShowcase | PlannedType | PlannedGroup | PlannedOption | PlannedProduct

/** A catalog to write for a company, its records in an order that resolves. */
export interface CatalogPlan {
  readonly settings: CompanySettings
  readonly records: ReadonlyArray<PlannedRecord>
}

/** The most records of each kind a plan holds (it holds at least one category and one single product). */
export interface CatalogLimits {
  readonly categories: number
  readonly collections: number
  readonly brands: number
  readonly types: number
  readonly groups: number
  readonly options: number
  readonly singles: number
  readonly bundles: number
}

/** How many records of each resource a generated catalog has at most, by default. */
export const defaultLimits: CatalogLimits = {
  categories: 6,
  collections: 2,
  brands: 2,
  types: 3,
  groups: 4,
  options: 5,
  singles: 5,
  bundles: 2
}

/** Minimums that give a plan records of every kind: what the body arbitraries need to draw bodies of every resource. */
export const everyKind: Partial<CatalogLimits> = {
  collections: 1,
  brands: 1,
  types: 2,
  groups: 2,
  options: 1,
  singles: 2,
  bundles: 1
}

/** External ids of a plan: readable, so that a counterexample says which record is which. */
export const planExternalId = {
  categories: (i: number) => `category-${i}`,
  collections: (i: number) => `collection-${i}`,
  brands: (i: number) => `brand-${i}`,
  "customization-types": (i: number) => `type-${i}`,
  "customization-groups": (i: number) => `group-${i}`,
  "customization-options": (i: number) => `option-${i}`,
  products: (i: number) => `product-${i}`
} as const satisfies Record<ResourceName, (i: number) => string>
