/**
 * Decimal values travel as strings end to end: money, coefficients, dimensions and stock quantities are
 * never parsed into JS numbers, so no rounding can creep in. These helpers compare and canonicalise the
 * strings digit by digit.
 */
import { Schema } from "effect"
import { matching } from "./Text.js"

const split = (value: string): readonly [string, string] => {
  const [integer = "0", fraction = ""] = value.split(".")
  const trimmedInteger = integer.replace(/^0+(?=\d)/, "")
  return [trimmedInteger === "" ? "0" : trimmedInteger, fraction.replace(/0+$/, "")]
}

/** Canonical form of a non-negative decimal string: no leading zeros, no trailing fraction zeros. */
export const canonical = (value: string): string => {
  const [integer, fraction] = split(value)
  return fraction === "" ? integer : `${integer}.${fraction}`
}

/** Canonical form with exactly `places` fraction digits (used for money). */
export const fixed = (value: string, places: number): string => {
  const [integer, fraction] = split(value)
  return places === 0 ? integer : `${integer}.${fraction.padEnd(places, "0")}`
}

/** Compares two non-negative decimal strings: -1, 0 or 1. */
export const compare = (a: string, b: string): -1 | 0 | 1 => {
  const [ai, af] = split(a)
  const [bi, bf] = split(b)
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1
  if (ai !== bi) return ai < bi ? -1 : 1
  const width = Math.max(af.length, bf.length)
  const ap = af.padEnd(width, "0")
  const bp = bf.padEnd(width, "0")
  return ap === bp ? 0 : ap < bp ? -1 : 1
}

/** Equality of two decimal strings by value ("20" equals "20.00"). */
export const equals = (a: string, b: string): boolean => compare(a, b) === 0

/** True when the decimal string has no fractional part other than zeros. */
export const isWhole = (value: string): boolean => split(value)[1] === ""

/** Money: up to 16 integer digits and up to 2 decimals; kept with exactly 2 decimals once stored. */
export const Money = Schema.String.check(
  matching(/^\d{1,16}(\.\d{1,2})?$/, "must be a decimal string with up to 16 integer digits and up to 2 decimals")
).annotate({ identifier: "Money", examples: ["1299.00"] })

/**
 * A pricing coefficient: up to 4 decimals, 0 < c <= 100. No examples: the OpenAPI document has never
 * shown any for it.
 */
export const Coefficient = Schema.String.check(
  matching(/^\d+(\.\d{1,4})?$/, "must be a decimal string with up to 4 decimals"),
  Schema.makeFilter(
    (c: string) => (compare(c, "0") > 0 && compare(c, "100") <= 0) || "must be greater than 0 and at most 100",
    { toJsonSchema: () => ({}) }
  )
).annotate({ identifier: "Coefficient" })

/** A physical dimension, weight or volume: non-negative, up to 16 integer digits and 6 decimals. */
export const Dimension = Schema.String.check(
  matching(
    /^\d{1,16}(\.\d{1,6})?$/,
    "must be a non-negative decimal string with up to 16 integer digits and up to 6 decimals"
  )
).annotate({ identifier: "Dimension", examples: ["84.5"] })

/**
 * A stock quantity: up to 9 integer digits and up to 3 decimals. No identifier: the OpenAPI document
 * writes it out where StockWrite describes it, not as a component.
 */
export const Quantity = Schema.String.check(
  matching(/^\d{1,9}(\.\d{1,3})?$/, "must be a decimal string with up to 9 integer digits and up to 3 decimals")
).annotate({ examples: ["12", "3.5"] })
