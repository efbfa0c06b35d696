import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Ids, IdsLive, uuidV7 } from "../src/Shared/Ids.js"
import { prop } from "./properties.js"

const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const bytesOf = (id: string) => Uint8Array.from(id.replace(/-/g, "").match(/../g)!, (pair) => Number.parseInt(pair, 16))

describe("Ids", () => {
  prop(
    "a UUIDv7 holds the millisecond time in its first 48 bits and the random bytes after, but for version and variant",
    [fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.uint8Array({ minLength: 10, maxLength: 10 })],
    ([millis, random]) => {
      const id = uuidV7(millis, random)
      expect(id).toMatch(v7)
      const bytes = bytesOf(id)
      expect(bytes.subarray(0, 6).reduce((time, byte) => time * 256 + byte, 0)).toBe(millis)
      expect(bytes[6]! & 0x0f).toBe(random[0]! & 0x0f)
      expect(bytes[7]).toBe(random[1])
      expect(bytes[8]! & 0x3f).toBe(random[2]! & 0x3f)
      expect(Array.from(bytes.subarray(9))).toEqual(Array.from(random.subarray(3)))
    }
  )

  it.effect("live ids are distinct version-7 uuids in time order, across many blocks of randomness", () =>
    Effect.gen(function* () {
      const ids = yield* Effect.flatMap(Ids, (source) => Effect.replicateEffect(source.next, 2_000))
      expect(new Set(ids).size).toBe(ids.length)
      for (const id of ids) expect(id).toMatch(v7)
      const times = ids.map((id) => id.replace(/-/g, "").slice(0, 12))
      expect(times).toEqual([...times].sort())
      // Randomness is not repeated from one block to the next.
      const tails = new Set(ids.map((id) => id.replace(/-/g, "").slice(12)))
      expect(tails.size).toBe(ids.length)
    }).pipe(Effect.provide(IdsLive))
  )
})
