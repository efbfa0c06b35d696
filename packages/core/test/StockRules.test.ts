/**
 * Stock arithmetic and the rules of a stock write against a BigInt oracle: the oracle reads a quantity as
 * thousandths; the code under test never leaves decimal strings.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as StockQuantity from "../src/internal/Inventory/StockQuantity.js"
import * as StockRules from "../src/internal/Inventory/StockRules.js"
import { prop } from "./properties.js"

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""))

/** Quantities as the spec allows them (^\d{1,9}(\.\d{1,3})?$), leading and trailing zeros included. */
const quantity = fc
  .tuple(digits(1, 9), fc.option(digits(1, 3), { nil: undefined }))
  .map(([int, frac]) => (frac === undefined ? int : `${int}.${frac}`))

const thousandths = (value: string): bigint => {
  const [int = "0", frac = ""] = value.split(".")
  return BigInt(`${int}${frac.padEnd(3, "0")}`)
}

const canonicalPattern = /^(0|[1-9]\d*)(\.\d{0,2}[1-9])?$/

describe("StockQuantity", () => {
  prop("add is exact and canonical", [quantity, quantity], ([a, b]) => {
    const sum = StockQuantity.add(a, b)
    expect(thousandths(sum)).toBe(thousandths(a) + thousandths(b))
    expect(sum).toMatch(canonicalPattern)
  })

  prop("subtract gives the sign and the exact magnitude", [quantity, quantity], ([a, b]) => {
    const { negative, value } = StockQuantity.subtract(a, b)
    const expected = thousandths(a) - thousandths(b)
    expect(negative).toBe(expected < 0n)
    expect(thousandths(value)).toBe(expected < 0n ? -expected : expected)
    expect(value).toMatch(canonicalPattern)
  })

  it("works far beyond double precision and at the bounds", () => {
    expect(StockQuantity.add("999999999.999", "0.001")).toBe("1000000000")
    expect(StockQuantity.add("0.1", "0.2")).toBe("0.3")
    expect(StockQuantity.subtract("0", "0")).toEqual({ negative: false, value: "0" })
    expect(StockQuantity.subtract("1", "1.001")).toEqual({ negative: true, value: "0.001" })
    expect(StockQuantity.inRange("999999999.999")).toBe(true)
    expect(StockQuantity.inRange("1000000000")).toBe(false)
  })
})

describe("StockRules.apply", () => {
  const balance = fc.record({ physical: quantity, reserved: quantity, incoming: quantity }).map((q) => ({
    physical: StockQuantity.add(q.physical, "0"),
    reserved: StockQuantity.add(q.reserved, "0"),
    incoming: StockQuantity.add(q.incoming, "0")
  }))
  const action = fc.constantFrom("set" as const, "in" as const, "out" as const)
  const max = thousandths(StockQuantity.maximum)

  prop(
    "changes physical stock only, and refuses exactly what the rules refuse",
    [balance, action, quantity],
    ([current, act, q]) => {
      const expected =
        act === "set"
          ? thousandths(q)
          : act === "in"
            ? thousandths(current.physical) + thousandths(q)
            : thousandths(current.physical) - thousandths(q)
      const result = StockRules.apply(current, act, q)
      if (expected < 0n) {
        expect(result).toMatchObject({ _tag: "Refused", refusal: { reason: "stock_below_zero" } })
      } else if (expected > max) {
        expect(result).toMatchObject({ _tag: "Refused", refusal: { reason: "quantity_out_of_range" } })
      } else if (expected < thousandths(current.reserved)) {
        expect(result).toMatchObject({ _tag: "Refused", refusal: { reason: "stock_below_reserved" } })
      } else {
        expect(result._tag).toBe("Applied")
        if (result._tag !== "Applied") return
        expect(thousandths(result.quantities.physical)).toBe(expected)
        expect(result.quantities.reserved).toBe(current.reserved)
        expect(result.quantities.incoming).toBe(current.incoming)
      }
    }
  )

  it("examples: set, in, out, below zero, below reserved", () => {
    const current = { physical: "5", reserved: "2", incoming: "7" }
    expect(StockRules.apply(current, "set", "010.500")).toEqual({
      _tag: "Applied",
      quantities: { ...current, physical: "10.5" }
    })
    expect(StockRules.apply(current, "in", "1")).toEqual({ _tag: "Applied", quantities: { ...current, physical: "6" } })
    expect(StockRules.apply(current, "out", "3")).toEqual({
      _tag: "Applied",
      quantities: { ...current, physical: "2" }
    })
    expect(StockRules.apply(current, "out", "4")).toMatchObject({
      _tag: "Refused",
      refusal: { reason: "stock_below_reserved" }
    })
    expect(StockRules.apply(current, "out", "6")).toMatchObject({
      _tag: "Refused",
      refusal: { reason: "stock_below_zero" }
    })
    expect(StockRules.apply(current, "set", "1")).toMatchObject({
      _tag: "Refused",
      refusal: { reason: "stock_below_reserved" }
    })
  })
})

describe("whole numbers", () => {
  prop(
    "piece units refuse exactly the quantities with a non-zero fraction",
    [quantity, fc.boolean()],
    ([q, pieces]) => {
      const fractional = thousandths(q) % 1000n !== 0n
      expect(StockRules.violatesWholeNumbers(q, pieces)).toBe(pieces && fractional)
    }
  )

  it("products count in pieces when their unit is piece or unset; options and other units take decimals", () => {
    expect(StockRules.countsInPieces("product", "piece")).toBe(true)
    expect(StockRules.countsInPieces("product", null)).toBe(true)
    expect(StockRules.countsInPieces("product", "metre")).toBe(false)
    expect(StockRules.countsInPieces("option", null)).toBe(false)
  })
})
