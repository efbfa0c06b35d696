import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { WriteRunner } from "@catalog-sync/core"
import { prop } from "./properties.js"

/** How fingerprints serialised bodies until now: a stored fingerprint must keep matching its retries. */
const replacerJson = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        )
      : v
  )

describe("canonicalJson", () => {
  prop("writes any JSON value exactly as the fingerprints stored before it", [fc.jsonValue()], ([value]) => {
    expect(WriteRunner.canonicalJson(value)).toBe(replacerJson(value))
  })

  it("sorts keys at every depth, array indices first as JavaScript orders them, and keeps __proto__ a key", () => {
    const body = JSON.parse('{"b":1,"a":{"z":[{"y":1,"x":2}],"10":0,"2":0},"__proto__":{"d":1,"c":2}}')
    expect(WriteRunner.canonicalJson(body)).toBe(
      '{"__proto__":{"c":2,"d":1},"a":{"2":0,"10":0,"z":[{"x":2,"y":1}]},"b":1}'
    )
    expect(WriteRunner.canonicalJson(body)).toBe(replacerJson(body))
  })
})
