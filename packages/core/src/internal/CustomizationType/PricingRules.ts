import { Effect } from "effect"
import type { PersistenceError } from "../../Shared/Errors.js"
import type { StoredRecord } from "../../Catalog/StoredRecord.js"
import type { Document, RuleContext, Violation } from "../Resources/ResourceDefinition.js"
import { fixed } from "../Shared/Decimal.js"
import type { RecordId } from "../../Shared/Ids.js"
import type { PricingMode } from "../../Resources/CommonFields.js"
import type { DocumentOf } from "../Resources/Documents.js"

type CustomizationGroupDocument = DocumentOf<"customization-groups">
type CustomizationTypeDocument = DocumentOf<"customization-types">

/** What the pricing rules read of a group or an option: its price rule. */
export type Priced = {
  readonly pricing_mode: typeof PricingMode.Type
  readonly pricing_value: string | null
}

/** A percent or fixed rule needs a value; `none` carries none, so a value left behind is dropped. */
export const normalizePricing = <Stored extends Priced>(document: Stored): Stored => ({
  ...document,
  pricing_value:
    document.pricing_mode === "none" || document.pricing_value === null ? null : fixed(document.pricing_value, 2)
})

export const pricingViolations = (document: Priced): ReadonlyArray<Violation> =>
  document.pricing_mode !== "none" && document.pricing_value === null
    ? [
        {
          reason: "invalid_pricing",
          issue: {
            path: "$.pricing_value",
            message: `pricing_mode ${String(document.pricing_mode)} needs a pricing_value`
          }
        }
      ]
    : []

/**
 * The type's pricing_scope says which level carries the price rule: `group` (swatch books priced, fabric
 * samples not) or `option`. A rule on the other level is refused.
 */
export const scopeViolations = <Stored extends Document, E>(
  document: Priced,
  level: "group" | "option",
  typeId: RecordId,
  context: RuleContext<Stored, E>
): Effect.Effect<ReadonlyArray<Violation>, PersistenceError | E> =>
  document.pricing_mode === "none"
    ? Effect.succeed([])
    : context.lockPricing.pipe(
        Effect.andThen(context.getMany("customization-types", [typeId])),
        Effect.map(([type]) =>
          type !== undefined && type.data.pricing_scope !== level
            ? [
                {
                  reason: "invalid_pricing" as const,
                  issue: {
                    path: "$.pricing_mode",
                    message: `the customization type prices at ${type.data.pricing_scope} level; a ${level} carries pricing_mode none`
                  }
                }
              ]
            : []
        )
      )

/** Records among `records` that carry a pricing rule, as one violation at `path` (none when there are none). */
const pricedViolations = (
  records: ReadonlyArray<StoredRecord<Priced>>,
  label: string,
  path: string,
  why: string
): ReadonlyArray<Violation> => {
  const priced = records.filter((r) => r.data.pricing_mode !== "none")
  if (priced.length === 0) return []
  const listed = priced
    .slice(0, 10)
    .map((r) => r.id)
    .join(", ")
  return [
    {
      reason: "invalid_pricing",
      issue: {
        path,
        message: `${why}, but ${priced.length} ${label}${priced.length === 1 ? "" : "s"} carr${priced.length === 1 ? "ies" : "y"} a pricing rule (${listed}${priced.length > 10 ? ", ..." : ""}); set pricing_mode none there first`
      }
    }
  ]
}

/**
 * A type whose pricing_scope changes must leave no rule on the level that no longer carries one: to
 * `option`, its groups; to `group`, the options of its groups. Only checked when the scope changes.
 */
export const typeScopeChangeViolations = <E>(
  document: CustomizationTypeDocument,
  context: RuleContext<CustomizationTypeDocument, E>
): Effect.Effect<ReadonlyArray<Violation>, PersistenceError | E> =>
  Effect.gen(function* () {
    if (context.stored === undefined || context.stored.pricing_scope === document.pricing_scope) return []
    yield* context.lockPricing
    const groups = yield* context.children("customization-groups", [context.recordId])
    if (document.pricing_scope === "option") {
      return pricedViolations(groups, "group", "$.pricing_scope", "option-level pricing leaves groups without rules")
    }
    const options = yield* context.children(
      "customization-options",
      groups.map((g) => g.id)
    )
    return pricedViolations(options, "option", "$.pricing_scope", "group-level pricing leaves options without rules")
  })

/** A group moving to a type that prices at group level takes options that must carry no rule. */
export const groupMoveViolations = <E>(
  document: CustomizationGroupDocument,
  context: RuleContext<CustomizationGroupDocument, E>
): Effect.Effect<ReadonlyArray<Violation>, PersistenceError | E> =>
  Effect.gen(function* () {
    if (context.stored === undefined || context.stored.type_id === document.type_id) return []
    yield* context.lockPricing
    const [type] = yield* context.getMany("customization-types", [document.type_id])
    if (type === undefined || type.data.pricing_scope !== "group") return []
    const options = yield* context.children("customization-options", [context.recordId])
    return pricedViolations(options, "option", "$.type_id", "the new type prices at group level")
  })
