import { Effect, Layer } from "effect"
import { RateLimiter, type RateState, windowDecision, windowStartOf, windowUsage } from "./RateLimiter.js"

/**
 * Fixed-window counters in this process: right for a single instance. Stale windows are dropped as
 * they are met and when the table grows, so memory stays bounded by the active buckets.
 */
export const layer = Layer.sync(RateLimiter, () => {
  const windows = new Map<string, { start: number; count: number }>()
  const count = (bucket: string, limit: number, windowMillis: number, nowMillis: number) => {
    const start = windowStartOf(windowMillis, nowMillis)
    let current = windows.get(bucket)
    if (current === undefined || current.start !== start) {
      if (windows.size > 100_000) {
        for (const [name, window] of windows) if (window.start !== start) windows.delete(name)
      }
      current = { start, count: 0 }
      windows.set(bucket, current)
    }
    current.count++
    return windowDecision(current.count, limit, start, windowMillis, nowMillis)
  }
  return RateLimiter.of({
    consume: (bucket, limit, windowMillis, nowMillis) =>
      Effect.sync(() => count(bucket, limit, windowMillis, nowMillis)),
    consumeInOrder: (buckets, windowMillis, nowMillis) =>
      Effect.sync(() => {
        const states: Array<RateState> = []
        for (const { bucket, limit } of buckets) {
          const state = count(bucket, limit, windowMillis, nowMillis)
          states.push(state)
          if (!state.allowed) break
        }
        return states
      }),
    usage: (bucket, limit, windowMillis, nowMillis) =>
      Effect.sync(() => {
        const start = windowStartOf(windowMillis, nowMillis)
        const current = windows.get(bucket)
        return windowUsage(current?.start === start ? current.count : 0, limit, start, windowMillis, nowMillis)
      })
  })
})
