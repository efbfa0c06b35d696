/**
 * The pure rules of a stock write (spec 2.11): `set`, `in` and `out` change physical stock only; the
 * result may not fall below zero or below the reserved quantity, nor leave the quantity range; piece
 * units take whole numbers.
 */
import { compare, isWhole } from "../Shared/Decimal.js"
import { add, inRange, maximum, subtract } from "./StockQuantity.js"

export type StockAction = "set" | "in" | "out"

/** The three quantities of one location's balance, as canonical decimal strings. */
export interface Quantities {
  readonly physical: string
  readonly reserved: string
  readonly incoming: string
}

export const empty: Quantities = { physical: "0", reserved: "0", incoming: "0" }

export type StockRefusal =
  | { readonly reason: "stock_below_zero"; readonly message: string }
  | { readonly reason: "stock_below_reserved"; readonly message: string; readonly physical: string }
  | { readonly reason: "quantity_out_of_range"; readonly message: string }

export type Applied =
  | { readonly _tag: "Applied"; readonly quantities: Quantities }
  | { readonly _tag: "Refused"; readonly refusal: StockRefusal }

/**
 * The balance after `action` with `quantity`. Reserved and incoming are kept as they are; a result below
 * zero, below the reserved quantity or beyond 9 integer digits is refused.
 */
export const apply = (current: Quantities, action: StockAction, quantity: string): Applied => {
  let physical: string
  if (action === "set") physical = subtract(quantity, "0").value
  else if (action === "in") physical = add(current.physical, quantity)
  else {
    const result = subtract(current.physical, quantity)
    if (result.negative) {
      return {
        _tag: "Refused",
        refusal: {
          reason: "stock_below_zero",
          message: `taking ${quantity} out of ${current.physical} would leave -${result.value}`
        }
      }
    }
    physical = result.value
  }
  if (!inRange(physical)) {
    return {
      _tag: "Refused",
      refusal: {
        reason: "quantity_out_of_range",
        message: `physical stock would be ${physical}, above the maximum ${maximum}`
      }
    }
  }
  if (compare(physical, current.reserved) < 0) {
    return {
      _tag: "Refused",
      refusal: {
        reason: "stock_below_reserved",
        message: `physical stock ${physical} would be below the reserved quantity ${current.reserved}`,
        physical
      }
    }
  }
  return { _tag: "Applied", quantities: { ...current, physical } }
}

/**
 * Whether a source counts in whole pieces: products whose unit is `piece` or unset (furniture is counted
 * in pieces unless a unit says otherwise). Options (fabrics) are measured by length, so they take decimals.
 */
export const countsInPieces = (sourceKind: "product" | "option", unit: unknown): boolean =>
  sourceKind === "product" && (unit === null || unit === undefined || unit === "piece")

/** A quantity that piece units refuse. */
export const violatesWholeNumbers = (quantity: string, pieces: boolean): boolean => pieces && !isWhole(quantity)
