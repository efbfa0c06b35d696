import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { jsonShape } from "../src/BodyLimit.js"
import { inexactNumbers } from "../src/JsonNumbers.js"
import { prop } from "./props.js"

const beyond = "must be between -9007199254740991 and 9007199254740991: larger numbers are not held exactly"
const underflows = "is too small to be held: it would be read as 0"

describe("inexactNumbers", () => {
  it("names each literal JSON.parse cannot hold at its path: beyond 2^53 - 1, Infinity, a non-zero read as 0", () => {
    const tiny = `0.${"0".repeat(400_000)}1`
    const text = `{"expected_revision":${tiny},"a":[1,{"b\\"c":9007199254740993}],"d":[[-1e400],1e-400],"e":-9.007199254740993e15}`
    expect(inexactNumbers(text, 21)).toEqual([
      { path: "$.expected_revision", message: underflows },
      { path: '$.a[1].b"c', message: beyond },
      { path: "$.d[0][0]", message: beyond },
      { path: "$.d[1]", message: underflows },
      { path: "$.e", message: beyond }
    ])
    expect(inexactNumbers(`[${tiny}]`, 21)).toEqual([{ path: "$[0]", message: underflows }])
    expect(inexactNumbers("9007199254740992", 21)).toEqual([{ path: "$", message: beyond }])
  })

  it("takes every number it holds exactly, zero however it is spelt, and numbers inside strings and keys", () => {
    const text = `{"a":9007199254740991,"b":-9007199254740991,"c":0.0e-999,"d":-0,"e":0.000000000000000000000001,"f":1e15,"g":"9007199254740993 1e400","1e400":[0.5,1.5e-300,123456789012345.5]}`
    expect(inexactNumbers(text, 21)).toEqual([])
  })

  it("is needed only for bodies with a long number literal, which the envelope's pass tells", () => {
    const shape = (text: string) => jsonShape(new TextEncoder().encode(text), { depth: 64, keys: 1000 }).longNumbers
    expect(shape(`{"a":[1,-2.5,123456789012345],"b":"1e400 9007199254740993","c":true}`)).toBe(false)
    for (const literal of ["1e5", "-1E-5", "1234567890123456", "0.000000000000001", `0.${"0".repeat(400)}1`])
      expect(shape(`{"a":"x","b":[${literal}]}`)).toBe(true)
  })

  it("stops at its limit, and cuts a long key as paths elsewhere are", () => {
    const many = `[${Array.from({ length: 50 }, () => "1e999").join(",")}]`
    expect(inexactNumbers(many, 21)).toHaveLength(21)
    const key = "k".repeat(150)
    expect(inexactNumbers(`{"${key}":1e999}`, 21)).toEqual([{ path: `$.${"k".repeat(100)}…`, message: beyond }])
  })

  prop(
    "refuses exactly the numbers whose value is not a safe integer-range finite number or a non-zero read as 0",
    [
      fc.jsonValue({ maxDepth: 4 }),
      fc.array(fc.oneof(fc.double(), fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n })), { maxLength: 5 })
    ],
    ([value, numbers]) => {
      const literals = numbers.map((n) =>
        typeof n === "bigint" ? n.toString() : Number.isFinite(n) ? JSON.stringify(n) : "1e999"
      )
      const text = JSON.stringify({ numbers: "@", value }).replace('"@"', `[${literals.join(",")}]`)
      const expected = literals.flatMap((literal, i) => {
        const parsed = Number(literal)
        return !Number.isFinite(parsed) || Math.abs(parsed) > Number.MAX_SAFE_INTEGER
          ? [{ path: `$.numbers[${i}]`, message: beyond }]
          : []
      })
      const all = inexactNumbers(text, 1000)
      expect(all.filter((issue) => issue.path.startsWith("$.numbers"))).toEqual(expected)
      // The envelope's pass over the bytes tells every body with such a number, so skipping the rest is safe.
      const shape = jsonShape(new TextEncoder().encode(text), { depth: 64, keys: 1_000_000 })
      if (all.length > 0) expect(shape.longNumbers).toBe(true)
    }
  )
})
