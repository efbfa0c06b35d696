import { Effect, Layer } from "effect"
import { RateLimiter, windowDecision } from "./RateLimiter.js"

/**
 * Fixed-window counters in this process: right for a single instance. Stale windows are dropped as
 * they are met and when the table grows, so memory stays bounded by the active buckets.
 */
export const layer = Layer.sync(RateLimiter, () => {
  const windows = new Map<string, { start: number; count: number }>()
  return RateLimiter.of({
    consume: (bucket, limit, windowMillis, nowMillis) =>
      Effect.sync(() => {
        const start = nowMillis - (nowMillis % windowMillis)
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
      })
  })
})
