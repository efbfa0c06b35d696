/** Planned products: singles in the plan's categories with selection fields over its groups, and bundles of the singles. */
import * as fc from "fast-check"
import type { CompanySettings } from "../../Auth/Company.js"
import { ProductUnit } from "../../Product/Product.js"
import type { Document } from "../../internal/Resources/ResourceDefinition.js"
import { configuredTaxRate, defined, index, maybe, optionalIndex, ref, translationsFor } from "./BodyParts.js"
import { planExternalId, type PlannedField, type PlannedProduct, Ref } from "./CatalogPlan.js"
import type { Skeleton } from "./Skeleton.js"
import { coefficient, money, nameText, text } from "./Values.js"

/** Selection fields over the plan's types, each linking some groups of its own type. */
const fieldsOf = (shape: Skeleton) =>
  shape.counts.types === 0
    ? fc.constant([] as ReadonlyArray<{ readonly field: PlannedField; readonly body: Document }>)
    : fc
        .array(
          fc.record({
            type: index(shape.counts.types),
            name: nameText(1, 40),
            coefficient: maybe(coefficient),
            pick: fc.array(fc.boolean(), { minLength: shape.counts.groups, maxLength: shape.counts.groups })
          }),
          { maxLength: 2 }
        )
        .chain((drawn) =>
          fc.tuple(
            ...drawn.map((field, k) => {
              const type = planExternalId["customization-types"](field.type)
              const groups = shape.groupTypes.flatMap((t, g) =>
                t === field.type && field.pick[g] === true ? [planExternalId["customization-groups"](g)] : []
              )
              return fc
                .record({
                  typeRef: ref("customization-types", type),
                  groupRefs: fc.tuple(...groups.map((g) => ref("customization-groups", g)))
                })
                .map(({ typeRef, groupRefs }) => ({
                  field: { externalId: `field-${k}`, type, groups },
                  body: defined({
                    external_id: `field-${k}`,
                    name: field.name,
                    type_id: typeRef,
                    group_ids: groupRefs,
                    coefficient: field.coefficient
                  })
                }))
            })
          )
        )

export const productRecord = (
  settings: CompanySettings,
  shape: Skeleton,
  i: number,
  kind: "single" | "bundle"
): fc.Arbitrary<PlannedProduct> => {
  const { counts } = shape
  return fc
    .record({
      name: nameText(1, 40),
      sku: maybe(text(0, 100)),
      categories: fc.uniqueArray(index(counts.categories), { minLength: 1, maxLength: Math.min(3, counts.categories) }),
      collection: optionalIndex(counts.collections),
      brand: optionalIndex(counts.brands),
      unit: fc.option(fc.constantFrom(...ProductUnit.literals), { nil: null }),
      fields: fieldsOf(shape),
      components:
        kind === "bundle"
          ? fc.uniqueArray(
              fc.record({ single: index(counts.singles), quantity: fc.integer({ min: 1, max: 10_000 }) }),
              {
                maxLength: Math.min(3, counts.singles),
                selector: (c) => c.single
              }
            )
          : fc.constant([]),
      price: maybe(money),
      taxRate: maybe(configuredTaxRate(settings)).map((rate) => rate ?? undefined),
      active: fc.boolean(),
      sendKind: fc.boolean(),
      translations: maybe(translationsFor(settings, "products")),
      byId: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 })
    })
    .map((drawn): PlannedProduct => {
      const externalId = planExternalId.products(i)
      const categories = drawn.categories.map(planExternalId.categories)
      const components = drawn.components.map((c) => planExternalId.products(c.single))
      const active =
        drawn.active &&
        drawn.price !== undefined &&
        (kind === "single" || components.length > 0) &&
        drawn.fields.every(({ field }) => field.groups.length > 0)
      const priceKeys = drawn.price !== undefined || drawn.taxRate !== undefined
      return {
        resource: "products",
        externalId,
        kind,
        categories,
        components,
        fields: drawn.fields.map(({ field }) => field),
        active,
        priced: drawn.price !== undefined,
        unit: drawn.unit,
        body: defined({
          external_id: externalId,
          name: drawn.name,
          sku: drawn.sku,
          kind: kind === "bundle" || drawn.sendKind ? kind : undefined,
          category_ids: categories.map((c, k) => new Ref("categories", c, drawn.byId[k % 6] === true)),
          collection_id:
            drawn.collection === undefined
              ? undefined
              : new Ref("collections", planExternalId.collections(drawn.collection), drawn.byId[1] === true),
          brand_id:
            drawn.brand === undefined
              ? undefined
              : new Ref("brands", planExternalId.brands(drawn.brand), drawn.byId[2] === true),
          unit: drawn.unit ?? undefined,
          fields: drawn.fields.length === 0 ? undefined : drawn.fields.map(({ body }) => body),
          components:
            kind === "bundle"
              ? drawn.components.map((c, k) => ({
                  product_id: new Ref("products", planExternalId.products(c.single), drawn.byId[(k + 3) % 6] === true),
                  quantity: c.quantity
                }))
              : undefined,
          translations: drawn.translations,
          active: active ? true : undefined,
          ...(priceKeys ? { mode: "combined", price: drawn.price, tax_rate: drawn.taxRate } : {})
        })
      }
    })
}
