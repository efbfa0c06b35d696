import { Effect } from "effect"
import type { Document, RuleContext, Violation } from "../Catalog/ResourceDefinition.js"
import { fixed } from "../Shared/Decimal.js"
import type { RecordId } from "../Shared/Ids.js"

/** A percent or fixed rule needs a value; `none` carries none, so a value left behind is dropped. */
export const normalizePricing = (document: Document): Document => ({
  ...document,
  pricing_value:
    document.pricing_mode === "none" || document.pricing_value === null ? null : fixed(document.pricing_value as string, 2)
})

export const pricingViolations = (document: Document): ReadonlyArray<Violation> =>
  document.pricing_mode !== "none" && document.pricing_value === null
    ? [{ reason: "invalid_pricing", issue: { path: "$.pricing_value", message: `pricing_mode ${String(document.pricing_mode)} needs a pricing_value` } }]
    : []

/**
 * The type's pricing_scope says which level carries the price rule: `group` (swatch books priced, fabric
 * samples not) or `option`. A rule on the other level is refused.
 */
export const scopeViolations = (
  document: Document,
  level: "group" | "option",
  typeId: RecordId,
  context: RuleContext
): Effect.Effect<ReadonlyArray<Violation>, import("../Catalog/CatalogErrors.js").PersistenceError> =>
  document.pricing_mode === "none"
    ? Effect.succeed([])
    : context.getMany("customization-types", [typeId]).pipe(
        Effect.map(([type]) =>
          type !== undefined && type.data.pricing_scope !== level
            ? [
                {
                  reason: "invalid_pricing" as const,
                  issue: {
                    path: "$.pricing_mode",
                    message: `the customization type prices at ${String(type.data.pricing_scope)} level; a ${level} carries pricing_mode none`
                  }
                }
              ]
            : []
        )
      )
