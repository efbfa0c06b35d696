import { Clock, Context, Effect, Schema } from "effect"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import type { PersistenceError } from "../Shared/Errors.js"

/** The state of one bucket after a request, as the RateLimit headers report it. */
export interface RateState {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets (>= 1). */
  readonly resetSeconds: number
}

/**
 * Counts requests per bucket in fixed windows. In memory for one instance; shared through the database
 * when several instances serve one company.
 */
export class RateLimiter extends Context.Tag("@catalog-sync/core/RateLimiter")<
  RateLimiter,
  {
    readonly consume: (
      bucket: string,
      limit: number,
      windowMillis: number,
      nowMillis: number
    ) => Effect.Effect<RateState, PersistenceError>
  }
>() {}

/** Requests an API key may make per minute. */
export const perKeyPerMinute = 120
/** Requests a company's keys may make per minute together. */
export const perCompanyPerMinute = 600
const minute = 60_000

/** Too many requests; retry after `retry_after` seconds. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retry_after: Schema.Int
}) {
  get code(): "rate_limited" {
    return "rate_limited"
  }
}

/** The fixed-window decision for one bucket, shared by the in-memory and SQL limiters. */
export const windowDecision = (
  count: number,
  limit: number,
  windowStart: number,
  windowMillis: number,
  nowMillis: number
): RateState => ({
  allowed: count <= limit,
  limit,
  remaining: Math.max(0, limit - count),
  resetSeconds: Math.max(1, Math.ceil((windowStart + windowMillis - nowMillis) / 1000))
})

/**
 * Counts the request against its key (120/min) and its company (600/min). Returns the tighter state,
 * for the RateLimit headers; the caller refuses the request with RateLimited when it is not `allowed`.
 */
export const checkRate = Effect.flatMap(CurrentPrincipal, (principal) =>
  Effect.flatMap(RateLimiter, (limiter) => checkRateWith(limiter, principal))
)

/** `checkRate` over a given limiter and principal, for the HTTP edge (no context lookups per request). */
export const checkRateWith = (limiter: Context.Tag.Service<typeof RateLimiter>, principal: Principal) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const key = yield* limiter.consume(`key:${principal.keyId}`, perKeyPerMinute, minute, now)
    const state = key.allowed
      ? yield* limiter.consume(`company:${principal.company.id}`, perCompanyPerMinute, minute, now)
      : key
    return !state.allowed || state.remaining < key.remaining ? state : key
  })
