import { expect, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { RateLimiter } from "../RateLimit/RateLimiter.js"

const minute = 60_000
/** The start of a minute window. */
const S = 1_750_000_000_000 - (1_750_000_000_000 % minute)
const bucket = () => `key:${globalThis.crypto.randomUUID()}`

/**
 * The contract of the `RateLimiter` port, run by each implementation against its own layer. Each test
 * counts in fresh buckets, so one layer serves the whole suite.
 */
export const runRateLimiterConformance = (name: string, limiter: Layer.Layer<RateLimiter, unknown>) =>
  layer(limiter, { timeout: 60_000 })(`RateLimiter conformance: ${name}`, (it) => {
    it.effect("counts requests in a window against the limit", () =>
      Effect.gen(function* () {
        const rate = yield* RateLimiter
        const b = bucket()
        const states = yield* Effect.forEach([0, 1, 2, 3], (i) => rate.consume(b, 3, minute, S + 15_000 + i))
        expect(states).toEqual([
          { allowed: true, limit: 3, remaining: 2, resetSeconds: 45 },
          { allowed: true, limit: 3, remaining: 1, resetSeconds: 45 },
          { allowed: true, limit: 3, remaining: 0, resetSeconds: 45 },
          { allowed: false, limit: 3, remaining: 0, resetSeconds: 45 }
        ])
        expect(yield* rate.consume(b, 3, minute, S + minute - 1)).toEqual({
          allowed: false,
          limit: 3,
          remaining: 0,
          resetSeconds: 1
        })
      })
    )

    it.effect("starts every window from zero", () =>
      Effect.gen(function* () {
        const rate = yield* RateLimiter
        const b = bucket()
        for (let i = 0; i < 5; i++) yield* rate.consume(b, 2, minute, S + i)
        expect(yield* rate.consume(b, 2, minute, S + minute)).toEqual({
          allowed: true,
          limit: 2,
          remaining: 1,
          resetSeconds: 60
        })
        expect(yield* rate.consume(b, 2, minute, S + minute + 30_500)).toEqual({
          allowed: true,
          limit: 2,
          remaining: 0,
          resetSeconds: 30
        })
        expect(yield* rate.consume(b, 2, minute, S + 5 * minute + 1)).toEqual({
          allowed: true,
          limit: 2,
          remaining: 1,
          resetSeconds: 60
        })
      })
    )

    it.effect("counts each bucket separately", () =>
      Effect.gen(function* () {
        const rate = yield* RateLimiter
        const [a, b] = [bucket(), bucket()]
        for (let i = 0; i < 3; i++) yield* rate.consume(a, 10, minute, S)
        expect((yield* rate.consume(b, 10, minute, S)).remaining).toBe(9)
        expect((yield* rate.consume(a, 10, minute, S)).remaining).toBe(6)
      })
    )

    it.effect("consumeInOrder counts each bucket in turn and stops after the first that refuses", () =>
      Effect.gen(function* () {
        const rate = yield* RateLimiter
        const [key, company] = [bucket(), bucket()]
        const both = [
          { bucket: key, limit: 2 },
          { bucket: company, limit: 3 }
        ]
        const runs = []
        for (let i = 0; i < 4; i++) runs.push(yield* rate.consumeInOrder(both, minute, S + 30_000))
        expect(runs.map((states) => states.map((state) => [state.allowed, state.remaining]))).toEqual([
          [
            [true, 1],
            [true, 2]
          ],
          [
            [true, 0],
            [true, 1]
          ],
          // The first bucket refuses: the second is not counted (its count stays 2).
          [[false, 0]],
          [[false, 0]]
        ])
        expect(yield* rate.consume(company, 3, minute, S + 30_000)).toMatchObject({ allowed: true, remaining: 0 })
        expect(runs[0]![0]!.resetSeconds).toBe(30)
        // A refusal by the second bucket counts it, as consume would.
        const other = bucket()
        for (let i = 0; i < 2; i++) yield* rate.consume(other, 1, minute, S)
        const refusedBySecond = yield* rate.consumeInOrder(
          [
            { bucket: bucket(), limit: 5 },
            { bucket: other, limit: 1 }
          ],
          minute,
          S
        )
        expect(refusedBySecond.map((state) => state.allowed)).toEqual([true, false])
        expect(yield* rate.consumeInOrder([], minute, S)).toEqual([])
      })
    )

    it.effect("usage reads a bucket's current window without counting", () =>
      Effect.gen(function* () {
        const rate = yield* RateLimiter
        const b = bucket()
        expect(yield* rate.usage(b, 3, minute, S + 20_000)).toEqual({
          used: 0,
          limit: 3,
          remaining: 3,
          resetSeconds: 40
        })
        for (let i = 0; i < 2; i++) yield* rate.consume(b, 3, minute, S + 20_000)
        const read = yield* rate.usage(b, 3, minute, S + 20_500)
        expect(read).toEqual({ used: 2, limit: 3, remaining: 1, resetSeconds: 40 })
        // Reading again counts nothing: the read is the same, and the next request is the third.
        expect(yield* rate.usage(b, 3, minute, S + 20_500)).toEqual(read)
        expect(yield* rate.consume(b, 3, minute, S + 21_000)).toMatchObject({ allowed: true, remaining: 0 })
        // Refused requests are counted too; the next window starts from zero.
        yield* rate.consume(b, 3, minute, S + 22_000)
        expect(yield* rate.usage(b, 3, minute, S + 59_999)).toEqual({
          used: 4,
          limit: 3,
          remaining: 0,
          resetSeconds: 1
        })
        expect((yield* rate.usage(b, 3, minute, S + minute)).used).toBe(0)
        // consumeInOrder's counts are read as consume's.
        const [key, company] = [bucket(), bucket()]
        yield* rate.consumeInOrder(
          [
            { bucket: key, limit: 5 },
            { bucket: company, limit: 5 }
          ],
          minute,
          S
        )
        expect((yield* rate.usage(key, 5, minute, S)).used).toBe(1)
        expect((yield* rate.usage(company, 5, minute, S)).used).toBe(1)
        expect((yield* rate.usage(bucket(), 5, minute, S)).used).toBe(0)
      })
    )

    it.effect("counts every one of many concurrent requests exactly once", () =>
      Effect.gen(function* () {
        const rate = yield* RateLimiter
        const b = bucket()
        const states = yield* Effect.all(
          Array.from({ length: 50 }, () => rate.consume(b, 30, minute, S + 1_000)),
          { concurrency: "unbounded" }
        )
        expect(states.filter((state) => state.allowed)).toHaveLength(30)
        // Each request saw its own count: remaining 29, 28, ..., 0 once each, then 0 for the refused ones.
        expect(states.map((state) => state.remaining).sort((x, y) => x - y)).toEqual([
          ...Array.from({ length: 21 }, () => 0),
          ...Array.from({ length: 29 }, (_, i) => i + 1)
        ])
        expect(yield* rate.consume(b, 30, minute, S + 2_000)).toMatchObject({ allowed: false, remaining: 0 })
      })
    )
  })
