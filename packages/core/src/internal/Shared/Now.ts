import { Clock, Effect } from "effect"

/** The clock's time as an ISO-8601 UTC timestamp, as records store it. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (millis) =>
  new Date(millis).toISOString()
)

/** The clock's time in milliseconds (leases, queue order) and as an ISO-8601 UTC timestamp. */
export const now: Effect.Effect<{ readonly millis: number; readonly at: string }> = Effect.map(
  Clock.currentTimeMillis,
  (millis) => ({ millis, at: new Date(millis).toISOString() })
)
