import { Clock, Context, Effect, Schema } from "effect"
import { Int } from "../Resources/CommonFields.js"
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

/** A bucket's count in the current window, read without counting a request. */
export interface RateUsage {
  /** Requests counted in the window so far (refused ones included). */
  readonly used: number
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets (>= 1). */
  readonly resetSeconds: number
}

/** A bucket to count a request in, and its limit per window. */
export interface RateBucket {
  readonly bucket: string
  readonly limit: number
}

/**
 * Counts requests per bucket in fixed windows. In memory for one instance; shared through the database
 * when several instances serve one company.
 */
export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    readonly consume: (
      bucket: string,
      limit: number,
      windowMillis: number,
      nowMillis: number
    ) => Effect.Effect<RateState, PersistenceError>
    /**
     * Counts the request in each bucket in turn, stopping after the first that refuses it: the states of
     * the buckets counted, in order. A limiter that pays a round trip per call (the database's) counts them
     * all in one; `consumeOneByOne` makes it of `consume` for one that need not.
     */
    readonly consumeInOrder: (
      buckets: ReadonlyArray<RateBucket>,
      windowMillis: number,
      nowMillis: number
    ) => Effect.Effect<ReadonlyArray<RateState>, PersistenceError>
    /** The bucket's count in the window `nowMillis` falls in, without counting anything (the panel shows it). */
    readonly usage: (
      bucket: string,
      limit: number,
      windowMillis: number,
      nowMillis: number
    ) => Effect.Effect<RateUsage, PersistenceError>
  }
>()("@catalog-sync/core/RateLimiter") {}

/** `consumeInOrder` made of `consume`, bucket by bucket: for a limiter that cannot do better. */
export const consumeOneByOne =
  (consume: RateLimiter["Service"]["consume"]): RateLimiter["Service"]["consumeInOrder"] =>
  (buckets, windowMillis, nowMillis) =>
    Effect.gen(function* () {
      const states: Array<RateState> = []
      for (const { bucket, limit } of buckets) {
        const state = yield* consume(bucket, limit, windowMillis, nowMillis)
        states.push(state)
        if (!state.allowed) break
      }
      return states
    })

/** Requests an API key may make per minute. */
export const perKeyPerMinute = 120
/** Requests a company's keys may make per minute together. */
export const perCompanyPerMinute = 600
/** The window every request is counted in. */
export const rateWindowMillis = 60_000

/** The bucket of one API key's requests. */
export const keyBucket = (keyId: string) => `key:${keyId}`
/** The bucket of all the requests of a company's keys. */
export const companyBucket = (companyId: string) => `company:${companyId}`

/** Too many requests; retry after `retry_after` seconds. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retry_after: Int
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

/** The start of the fixed window `nowMillis` falls in. */
export const windowStartOf = (windowMillis: number, nowMillis: number) => nowMillis - (nowMillis % windowMillis)

/** A bucket's use after `count` requests in the window starting at `windowStart`. */
export const windowUsage = (
  count: number,
  limit: number,
  windowStart: number,
  windowMillis: number,
  nowMillis: number
): RateUsage => {
  const { remaining, resetSeconds } = windowDecision(count, limit, windowStart, windowMillis, nowMillis)
  return { used: count, limit, remaining, resetSeconds }
}

/**
 * Counts the request against its key (120/min) and its company (600/min). Returns the tighter state,
 * for the RateLimit headers; the caller refuses the request with RateLimited when it is not `allowed`.
 */
export const checkRate = Effect.flatMap(CurrentPrincipal, (principal) =>
  Effect.flatMap(RateLimiter, (limiter) => checkRateWith(limiter, principal))
)

/** `checkRate` over a given limiter and principal, for the HTTP edge (no context lookups per request). */
export const checkRateWith = (limiter: Context.Service.Shape<typeof RateLimiter>, principal: Principal) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // A request the key's limit refuses is not counted against its company.
    const [key, company] = yield* limiter.consumeInOrder(
      [
        { bucket: keyBucket(principal.keyId), limit: perKeyPerMinute },
        { bucket: companyBucket(principal.company.id), limit: perCompanyPerMinute }
      ],
      rateWindowMillis,
      now
    )
    const state = company ?? key!
    return !state.allowed || state.remaining < key!.remaining ? state : key!
  })
