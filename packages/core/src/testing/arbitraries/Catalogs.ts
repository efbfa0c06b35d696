/**
 * Catalogs as graphs: category trees, customization types -> groups -> options, single products in
 * categories with selection fields over those groups, and bundles of the singles. A plan lists its
 * records in an order that resolves (every reference points at a record before it); `importBatches`
 * cuts it into import bodies and shuffles each, so that an import needs several passes.
 */
import * as fc from "fast-check"
import type { CompanySettings } from "../../Auth/Company.js"
import { type CatalogLimits, type CatalogPlan, defaultLimits, type PlannedRecord } from "./CatalogPlan.js"
import { productRecord } from "./PlannedProducts.js"
import { categoryRecord, groupRecord, optionRecord, showcaseRecord, typeRecord } from "./PlannedRecords.js"
import { skeleton } from "./Skeleton.js"

export * from "./CatalogPlan.js"
export { configuredTaxRate, defined, translationsFor } from "./BodyParts.js"
export * from "./ImportBatches.js"

/**
 * A catalog for a company with the given settings, `minimums` to `limits` records of each kind (`everyKind`
 * for some of every kind), its records in
 * an order that resolves: categories (parents first), collections, brands, types, groups, options, single
 * products, bundles. References are drawn by uuid or `{external_id}`; priced records are written in
 * combined mode; a product is active only when it passes sale validation.
 */
export const catalog = (
  settings: CompanySettings,
  limits: CatalogLimits = defaultLimits,
  minimums: Partial<CatalogLimits> = {}
): fc.Arbitrary<CatalogPlan> =>
  skeleton(limits, minimums).chain((shape) => {
    const { counts } = shape
    const range = (n: number) => Array.from({ length: n }, (_, i) => i)
    const records: Array<fc.Arbitrary<PlannedRecord>> = [
      ...range(counts.categories).map((i) => categoryRecord(settings, i, shape.parents[i] ?? null)),
      ...range(counts.collections).map((i) => showcaseRecord(settings, "collections", i)),
      ...range(counts.brands).map((i) => showcaseRecord(settings, "brands", i)),
      ...range(counts.types).map((i) => typeRecord(settings, i, shape.scopes[i]!)),
      ...range(counts.groups).map((i) =>
        groupRecord(settings, i, shape.groupTypes[i]!, shape.scopes[shape.groupTypes[i]!]!)
      ),
      ...range(counts.options).map((i) => {
        const group = shape.optionGroups[i]!
        return optionRecord(settings, i, group, shape.scopes[shape.groupTypes[group]!]!)
      }),
      ...range(counts.singles).map((i) => productRecord(settings, shape, i, "single")),
      ...range(counts.bundles).map((i) => productRecord(settings, shape, counts.singles + i, "bundle"))
    ]
    return fc.tuple(...records).map((drawn) => ({ settings, records: drawn }))
  })
