/**
 * Stock quantity arithmetic on decimal strings with at most three decimals. A quantity is read as a string
 * of digits counting thousandths and added or subtracted digit by digit, so no value ever passes through
 * a JS number and no rounding can creep in.
 */
import { canonical, compare } from "../Shared/Decimal.js"

/** Fraction digits of a stock quantity (spec 2.11: up to 3 decimals). */
export const scale = 3

/** The largest quantity the spec allows: 9 integer digits and 3 decimals. */
export const maximum = "999999999.999"

const stripZeros = (digits: string): string => digits.replace(/^0+(?=\d)/, "")

/** The quantity as a count of thousandths, in digits without leading zeros. */
export const toUnits = (value: string): string => {
  const [integer = "0", fraction = ""] = value.split(".")
  if (fraction.length > scale) throw new Error(`a stock quantity has at most ${scale} decimals: ${value}`)
  return stripZeros(`${integer}${fraction.padEnd(scale, "0")}`)
}

/** A count of thousandths back as a canonical decimal string ("1500" -> "1.5"). */
export const fromUnits = (units: string): string => {
  const padded = stripZeros(units).padStart(scale + 1, "0")
  return canonical(`${padded.slice(0, -scale)}.${padded.slice(-scale)}`)
}

const addDigits = (a: string, b: string): string => {
  let out = ""
  let carry = 0
  for (let i = a.length - 1, j = b.length - 1; i >= 0 || j >= 0 || carry > 0; i--, j--) {
    // Single digits only: the sum of two digits and a carry is at most 19.
    const sum = (i >= 0 ? a.charCodeAt(i) - 48 : 0) + (j >= 0 ? b.charCodeAt(j) - 48 : 0) + carry
    out = String(sum % 10) + out
    carry = sum >= 10 ? 1 : 0
  }
  return stripZeros(out === "" ? "0" : out)
}

/** a - b for digit strings with a >= b. */
const subtractDigits = (a: string, b: string): string => {
  let out = ""
  let borrow = 0
  for (let i = a.length - 1, j = b.length - 1; i >= 0; i--, j--) {
    let diff = a.charCodeAt(i) - 48 - (j >= 0 ? b.charCodeAt(j) - 48 : 0) - borrow
    borrow = diff < 0 ? 1 : 0
    if (diff < 0) diff += 10
    out = String(diff) + out
  }
  return stripZeros(out)
}

/** a + b, canonical. */
export const add = (a: string, b: string): string => fromUnits(addDigits(toUnits(a), toUnits(b)))

/** a - b as a sign and a magnitude: stock quantities are never negative, so callers decide what a negative result means. */
export const subtract = (a: string, b: string): { readonly negative: boolean; readonly value: string } =>
  compare(a, b) >= 0
    ? { negative: false, value: fromUnits(subtractDigits(toUnits(a), toUnits(b))) }
    : { negative: true, value: fromUnits(subtractDigits(toUnits(b), toUnits(a))) }

/** Whether the quantity fits the spec's range (at most 9 integer digits). */
export const inRange = (value: string): boolean => compare(value, maximum) <= 0
