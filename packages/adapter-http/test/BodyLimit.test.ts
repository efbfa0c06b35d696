import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { HttpServerError, HttpServerRequest } from "effect/http"
import fc from "fast-check"
import { jsonShapeRefusal, withBody } from "../src/BodyLimit.js"
import { prop } from "./props.js"

/** How many arrays or objects are open at once at the deepest point of a JSON value. */
const depthOf = (value: unknown): number =>
  value !== null && typeof value === "object"
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
    : 0

/** The different object keys of a JSON value, at any depth. */
const keysOf = (value: unknown, into = new Set<string>()): Set<string> => {
  if (value !== null && typeof value === "object") {
    if (!Array.isArray(value)) for (const key of Object.keys(value)) into.add(key)
    for (const item of Object.values(value as Record<string, unknown>)) keysOf(item, into)
  }
  return into
}

const bytes = (text: string) => new TextEncoder().encode(text)
const unlimited = 1_000_000

describe("jsonShapeRefusal", () => {
  prop(
    "agrees with the parsed value's depth, whatever brackets, quotes and escapes its strings hold",
    [fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 12 })],
    ([value, max]) => {
      expect(jsonShapeRefusal(bytes(JSON.stringify(value)), { depth: max, keys: unlimited })).toBe(
        depthOf(value) > max ? "too_deep" : undefined
      )
    }
  )

  prop(
    "agrees with the parsed value's count of different keys, whatever its strings and keys hold",
    [fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 30 })],
    ([value, max]) => {
      expect(jsonShapeRefusal(bytes(JSON.stringify(value)), { depth: 64, keys: max })).toBe(
        keysOf(value).size > max ? "too_many_keys" : undefined
      )
    }
  )

  it("counts tens of thousands of levels or keys without parsing them", () => {
    expect(jsonShapeRefusal(bytes("[".repeat(20_000) + "]".repeat(20_000)), { depth: 64, keys: 1_000 })).toBe(
      "too_deep"
    )
    expect(jsonShapeRefusal(bytes(JSON.stringify({ a: '[[[[\\"{{{{' })), { depth: 1, keys: 1 })).toBeUndefined()
    const manyKeys = JSON.stringify(Object.fromEntries(Array.from({ length: 75_000 }, (_, i) => [`k${i}`, 1])))
    expect(jsonShapeRefusal(bytes(manyKeys), { depth: 64, keys: 1_000 })).toBe("too_many_keys")
    // The same keys again and again are one name each: an import of 50 products names each field 50 times.
    const repeated = JSON.stringify(
      Array.from({ length: 5_000 }, () => ({ external_id: "p", name: "n", x: [{ y: 1 }] }))
    )
    expect(jsonShapeRefusal(bytes(repeated), { depth: 64, keys: 4 })).toBeUndefined()
  })
})

describe("withBody", () => {
  const bodied = (body: Buffer) =>
    withBody(HttpServerRequest.fromWeb(new Request("http://localhost/", { method: "POST" })), body)

  it.effect("fails text and json as a SyntaxError (400 malformed_json) for bytes that are not UTF-8", () =>
    Effect.gen(function* () {
      for (const bad of ["c080", "e080af", "80", "e282", "eda080", "f4908080", "ff"]) {
        const request = bodied(Buffer.from(`7b2261223a2241${bad}42227d`, "hex"))
        for (const read of [request.json, request.text]) {
          const failed = yield* Effect.result(read)
          expect(
            Result.isFailure(failed) &&
              HttpServerError.isHttpServerError(failed.failure) &&
              failed.failure.reason.cause instanceof SyntaxError
          ).toBe(true)
        }
      }
      const fine = bodied(Buffer.from('{"a":"Caf\u00e9 \ufffd \u{1F600}"}'))
      expect(yield* fine.json).toEqual({ a: "Caf\u00e9 \ufffd \u{1F600}" })
    })
  )
})
