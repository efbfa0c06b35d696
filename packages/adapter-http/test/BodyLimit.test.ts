import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { nestsDeeperThan } from "../src/BodyLimit.js"

/** How many arrays or objects are open at once at the deepest point of a JSON value. */
const depthOf = (value: unknown): number =>
  value !== null && typeof value === "object"
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
    : 0

const bytes = (text: string) => new TextEncoder().encode(text)

describe("nestsDeeperThan", () => {
  it.prop(
    "agrees with the parsed value's depth, whatever brackets, quotes and escapes its strings hold",
    [fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 12 })],
    ([value, max]) => {
      expect(nestsDeeperThan(bytes(JSON.stringify(value)), max)).toBe(depthOf(value) > max)
    }
  )

  it("counts tens of thousands of levels without parsing them", () => {
    expect(nestsDeeperThan(bytes("[".repeat(20_000) + "]".repeat(20_000)), 64)).toBe(true)
    expect(nestsDeeperThan(bytes(JSON.stringify({ a: '[[[[\\"{{{{' })), 1)).toBe(false)
  })
})
