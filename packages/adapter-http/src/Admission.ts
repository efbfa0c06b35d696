import type { HttpServerRequest } from "@effect/platform"
import { Accounts, ApiKey, Authenticate, type Principal, RateLimiter } from "@catalog-sync/core"
import { Clock, Context, Effect, FiberRef, Layer } from "effect"
import { ApiErrors } from "@catalog-sync/contract"
import { originOf, TrustedProxies } from "./ClientOrigin.js"
import { api } from "./ErrorResponses.js"
import { CurrentRequest, requestId } from "./RequestId.js"

/**
 * How many invalid keys (unknown, wrong secret, malformed) one client address may present per minute.
 * Past it, every request of that address that needs a key is answered 429 until the minute ends,
 * before any key is looked up, so guessing keys costs the guesser and not the server.
 */
export class AuthFailureBudget extends Context.Reference<AuthFailureBudget>()(
  "@catalog-sync/adapter-http/AuthFailureBudget",
  {
    defaultValue: () => ({ perMinute: 30 })
  }
) {}

const minute = 60_000

/**
 * Checks the key of a request: the failed-authentication throttle of its address, the key and its
 * custom domain (401/403), then the key's and company's rate limits (429). Adds the RateLimit headers
 * to the answer whatever it turns out to be.
 */
export class Admission extends Context.Tag("@catalog-sync/adapter-http/Admission")<
  Admission,
  {
    readonly admit: (
      request: HttpServerRequest.HttpServerRequest
    ) => Effect.Effect<
      Principal.Principal,
      | ApiErrors.Unauthorized
      | ApiErrors.Forbidden
      | ApiErrors.TooManyRequests
      | ApiErrors.InternalError
      | ApiErrors.ServiceUnavailable
    >
  }
>() {}

/** Addresses over their budget, until the end of their window; bounded by dropping expired entries. */
const makeBlockedAddresses = () => {
  const until = new Map<string, number>()
  return {
    secondsLeft: (address: string, now: number): number | undefined => {
      const end = until.get(address)
      if (end === undefined) return undefined
      if (end <= now) {
        until.delete(address)
        return undefined
      }
      return Math.max(1, Math.ceil((end - now) / 1000))
    },
    block: (address: string, end: number, now: number) => {
      if (until.size > 10_000) for (const [name, at] of until) if (at <= now) until.delete(name)
      until.set(address, end)
    }
  }
}

export const AdmissionLive = Layer.effect(
  Admission,
  Effect.gen(function* () {
    const accounts = yield* Accounts.Accounts
    const limiter = yield* RateLimiter.RateLimiter
    // The hasher of the layer's context (the server provides a synchronous one), else core's default.
    const hasher = yield* ApiKey.SecretHasher
    const trusted = (yield* TrustedProxies).list
    const budget = (yield* AuthFailureBudget).perMinute
    // Core's rules over the services themselves: a request pays no context lookups or copies for them.
    const authenticate = Authenticate.authenticateWith(accounts, hasher)
    // Failures are counted through the RateLimiter (shared by every instance on PostgreSQL), but only
    // when a key fails; the block itself is kept here, so admitted requests pay one map lookup.
    const blocked = makeBlockedAddresses()
    const throttled = (seconds: number) =>
      Effect.flatMap(requestId, (id) =>
        Effect.fail(
          ApiErrors.make(429, id, {
            code: "authentication_throttled",
            message: `too many invalid API keys from this address; retry after ${seconds} s`,
            retry_after: seconds
          })
        )
      )
    const countFailure = (address: string, now: number) =>
      limiter.consume(`auth-failures:${address}`, budget, minute, now).pipe(
        Effect.tap((state) =>
          state.allowed ? Effect.void : Effect.sync(() => blocked.block(address, now + state.resetSeconds * 1000, now))
        ),
        Effect.ignore
      )
    return Admission.of({
      admit: (request) =>
        Effect.gen(function* () {
          const origin = originOf(request, trusted)
          const now = yield* Clock.currentTimeMillis
          if (origin.address !== undefined) {
            const wait = blocked.secondsLeft(origin.address, now)
            if (wait !== undefined) return yield* throttled(wait)
          }
          const principal = yield* api(
            authenticate({ authorization: request.headers["authorization"], host: origin.host }).pipe(
              Effect.tapError((error) =>
                error._tag === "Unauthenticated" &&
                error.reason === "invalid_credentials" &&
                origin.address !== undefined
                  ? countFailure(origin.address, now)
                  : Effect.void
              )
            )
          )
          const state = yield* api(RateLimiter.checkRateWith(limiter, principal))
          const answer = (yield* FiberRef.get(CurrentRequest)).answerHeaders
          answer["ratelimit-limit"] = String(state.limit)
          answer["ratelimit-remaining"] = String(state.remaining)
          answer["ratelimit-reset"] = String(state.resetSeconds)
          if (!state.allowed) {
            return yield* api(
              Effect.fail(
                new RateLimiter.RateLimited({
                  message: `rate limit of ${state.limit} requests per minute reached; retry after ${state.resetSeconds} s`,
                  retry_after: state.resetSeconds
                })
              )
            )
          }
          return principal
        })
    })
  })
)
