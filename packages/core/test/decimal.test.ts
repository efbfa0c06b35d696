/**
 * The decimal helpers against a BigInt oracle: a decimal string is read as an integer of digits scaled by
 * 10^fraction-length, so no value ever passes through a JS number.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Decimal from "../src/internal/Shared/Decimal.js"
import { prop } from "./properties.js"

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((d) => d.join(""))

/** Non-negative decimal strings, with leading and trailing zeros, far beyond double precision. */
const decimal = fc
  .tuple(
    fc.constantFrom("", "0", "000"),
    digits(1, 24),
    fc.option(fc.tuple(digits(0, 10), fc.constantFrom("", "0", "000")), { nil: undefined })
  )
  .map(([zeros, int, frac]) =>
    frac === undefined || frac[0] + frac[1] === "" ? `${zeros}${int}` : `${zeros}${int}.${frac[0]}${frac[1]}`
  )

/** The same value written differently: leading zeros added, trailing fraction zeros added. */
const rewrite = (value: string, leading: string, trailing: string) => {
  const padded = `${leading}${value}`
  return trailing === "" ? padded : padded.includes(".") ? `${padded}${trailing}` : `${padded}.${trailing}`
}

const fractionOf = (value: string) => value.split(".")[1] ?? ""

/** `value` as an integer count of 10^-scale units. */
const scaled = (value: string, scale: number): bigint => {
  const [int = "0", frac = ""] = value.split(".")
  return BigInt(`${int}${frac.padEnd(scale, "0")}`)
}

const oracle = (a: string, b: string): -1 | 0 | 1 => {
  const scale = Math.max(fractionOf(a).length, fractionOf(b).length)
  const x = scaled(a, scale)
  const y = scaled(b, scale)
  return x === y ? 0 : x < y ? -1 : 1
}

/** Pairs that are often equal or close: independent values, rewrites of one value, and a last-digit change. */
const pair = fc.oneof(
  fc.tuple(decimal, decimal),
  fc
    .tuple(decimal, fc.constantFrom("", "0", "00"), fc.constantFrom("", "0", "00"))
    .map(([a, l, t]) => [a, rewrite(a, l, t)] as const),
  fc
    .tuple(decimal, fc.integer({ min: 1, max: 9 }))
    .map(([a, d]) => [a, `${a}${a.includes(".") ? "" : "."}${d}`] as const)
)

describe("Decimal", () => {
  prop(
    "compare agrees with a BigInt comparison",
    [pair],
    ([[a, b]]) => {
      expect(Decimal.compare(a, b)).toBe(oracle(a, b))
      expect(Decimal.compare(b, a)).toBe(oracle(b, a))
      expect(Decimal.equals(a, b)).toBe(oracle(a, b) === 0)
    },
    { fastCheck: { numRuns: 1000 } }
  )

  prop(
    "compare is a total order: reflexive, antisymmetric, transitive",
    [decimal, decimal, decimal],
    ([a, b, c]) => {
      expect(Decimal.compare(a, a)).toBe(0)
      expect(Decimal.compare(a, b)).toBe(-Decimal.compare(b, a) || 0)
      if (Decimal.compare(a, b) <= 0 && Decimal.compare(b, c) <= 0) expect(Decimal.compare(a, c)).toBeLessThanOrEqual(0)
    },
    { fastCheck: { numRuns: 500 } }
  )

  prop(
    "canonical is idempotent, value-preserving and without redundant zeros",
    [decimal],
    ([value]) => {
      const c = Decimal.canonical(value)
      expect(Decimal.canonical(c)).toBe(c)
      expect(oracle(c, value)).toBe(0)
      expect(c).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/)
    },
    { fastCheck: { numRuns: 500 } }
  )

  prop(
    "values are equal exactly when their canonical forms are",
    [pair],
    ([[a, b]]) => {
      expect(Decimal.canonical(a) === Decimal.canonical(b)).toBe(oracle(a, b) === 0)
    },
    { fastCheck: { numRuns: 500 } }
  )

  prop(
    "fixed gives exactly `places` decimals, is idempotent and value-preserving when the value fits",
    [decimal, fc.integer({ min: 0, max: 6 })],
    ([value, extra]) => {
      const places = fractionOf(Decimal.canonical(value)).length + extra
      const f = Decimal.fixed(value, places)
      expect(Decimal.fixed(f, places)).toBe(f)
      expect(oracle(f, value)).toBe(0)
      expect(fractionOf(f)).toHaveLength(places)
      expect(f).toMatch(/^(0|[1-9]\d*)(\.\d+)?$/)
      expect(Decimal.canonical(f)).toBe(Decimal.canonical(value))
    },
    { fastCheck: { numRuns: 500 } }
  )

  prop(
    "isWhole agrees with the BigInt value",
    [decimal],
    ([value]) => {
      const scale = fractionOf(value).length
      expect(Decimal.isWhole(value)).toBe(scaled(value, scale) % 10n ** BigInt(scale) === 0n)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("equal values written differently", () => {
    expect(Decimal.equals("20", "20.00")).toBe(true)
    expect(Decimal.equals("020.0", "20")).toBe(true)
    expect(Decimal.equals("0", "0.000")).toBe(true)
    expect(Decimal.equals("20", "20.01")).toBe(false)
    expect(Decimal.compare("9999999999999999.99", "9999999999999999.98")).toBe(1)
    expect(Decimal.compare("10", "9.999")).toBe(1)
    expect(Decimal.compare("0.3", "0.25")).toBe(1)
    expect(Decimal.canonical("0010.500")).toBe("10.5")
    expect(Decimal.canonical("000")).toBe("0")
    expect(Decimal.fixed("7", 2)).toBe("7.00")
    expect(Decimal.fixed("0.5", 2)).toBe("0.50")
    expect(Decimal.fixed("9999999999999999.9", 2)).toBe("9999999999999999.90")
    expect(Decimal.isWhole("12.000")).toBe(true)
    expect(Decimal.isWhole("12.010")).toBe(false)
  })
})
