import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as Pacer from "../src/Pacer.js"

/** Takes `n` tokens in turn and records when (test clock millis) each was granted. */
const grants = (pacer: Pacer.Pacer, n: number) =>
  Effect.gen(function* () {
    const at: Array<number> = []
    for (let i = 0; i < n; i++) {
      yield* pacer.take
      at.push(yield* Clock.currentTimeMillis)
    }
    return at
  })

describe("pacer", () => {
  it.effect("spaces requests evenly over the window at the key's limit, learnt from the headers", () =>
    Effect.gen(function* () {
      const pacer = yield* Pacer.make({ margin: 0 })
      // The limit of the headers (here 600 a minute: 100 ms apart) replaces the assumed 120.
      yield* pacer.observe({ limit: 600, remaining: 600, resetSeconds: 60 }, 0)
      const fiber = yield* Effect.forkChild(grants(pacer, 5))
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("100 millis")
      const at = yield* Fiber.join(fiber)
      expect(at[0]).toBe(0)
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(100)
      expect(at.at(-1)).toBeLessThanOrEqual(600)
    })
  )

  it.effect("slows down when the window was partly spent elsewhere, and waits for the reset when nothing is left", () =>
    Effect.gen(function* () {
      const pacer = yield* Pacer.make({ margin: 0 })
      yield* pacer.take
      // Let the pacer schedule its next grant (at the steady spacing) before the headers arrive.
      yield* Effect.yieldNow
      // 2 requests left for the next 10 s: about one every 10 s / 3, far slower than the steady 500 ms.
      yield* pacer.observe({ limit: 120, remaining: 2, resetSeconds: 10 }, 0)
      const fiber = yield* Effect.forkChild(grants(pacer, 2))
      for (let i = 0; i < 40; i++) yield* TestClock.adjust("500 millis")
      const spread = yield* Fiber.join(fiber)
      expect(spread[1]! - spread[0]!).toBeGreaterThanOrEqual(3000)
      yield* pacer.observe({ limit: 120, remaining: 0, resetSeconds: 30 }, yield* Clock.currentTimeMillis)
      const start = yield* Clock.currentTimeMillis
      const waiting = yield* Effect.forkChild(grants(pacer, 2))
      for (let i = 0; i < 80; i++) yield* TestClock.adjust("500 millis")
      const after = yield* Fiber.join(waiting)
      expect(after[1]! - start).toBeGreaterThanOrEqual(30_000)
    })
  )

  it.effect(
    "a company pacer shared by several keys runs at five times the key limit; the company's own headers do not speed up a key",
    () =>
      Effect.gen(function* () {
        const company = yield* Pacer.make({ limitFactor: 5, margin: 0 })
        const key = yield* Pacer.make({ margin: 0 })
        for (const pacer of [company, key]) {
          yield* pacer.observe({ limit: 120, remaining: 120, resetSeconds: 60 }, 0)
          // A later answer carries the company's state (limit 600): the key keeps its own limit.
          yield* pacer.observe({ limit: 600, remaining: 590, resetSeconds: 60 }, 1)
        }
        const fiber = yield* Effect.forkChild(Effect.all([grants(company, 4), grants(key, 3)], { concurrency: 2 }))
        for (let i = 0; i < 40; i++) yield* TestClock.adjust("50 millis")
        const [companyAt, keyAt] = yield* Fiber.join(fiber)
        expect(companyAt[1]! - companyAt[0]!).toBeGreaterThanOrEqual(100)
        expect(companyAt[1]! - companyAt[0]!).toBeLessThan(500)
        expect(keyAt[1]! - keyAt[0]!).toBeGreaterThanOrEqual(500)
      })
  )
})
