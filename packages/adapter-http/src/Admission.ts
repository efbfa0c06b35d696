import { HttpApp, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Accounts, ApiKey, Authenticate, Principal, RateLimiter } from "@catalog-sync/core"
import { Clock, Context, Effect, FiberRef, Layer, Option, Tracer } from "effect"
import { ApiErrors } from "@catalog-sync/contract"
import { originOf, TrustedProxies } from "./ClientOrigin.js"
import { api } from "./ErrorResponses.js"
import { requestId } from "./RequestId.js"

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

/**
 * The principal the Envelope admitted before it read the request's body; the Authentication middleware
 * reuses it instead of checking the key a second time.
 */
export const admittedPrincipal = FiberRef.unsafeMake<Principal.Principal | undefined>(undefined)

/**
 * Runs `effect` with exactly the services of `context` (plus the current parent span, so traces nest as
 * before), instead of `provideService` on the request's context: each `provideService` copies the whole
 * request context (every service of the app), which per request cost more than the lookups themselves.
 * Only for effects that need nothing else from the request's context.
 */
const withOnly =
  <R>(context: Context.Context<R>) =>
  <A, E>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E> =>
    Effect.mapInputContext(effect, (outer: Context.Context<never>) => {
      const span = Context.getOption(outer, Tracer.ParentSpan)
      return Option.isSome(span) ? Context.add(context, Tracer.ParentSpan, span.value) : context
    })

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
    const authContext = Context.make(Accounts.Accounts, accounts).pipe(Context.add(ApiKey.SecretHasher, hasher))
    const limiterContext = Context.make(RateLimiter.RateLimiter, limiter)
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
            Authenticate.authenticate({ authorization: request.headers["authorization"], host: origin.host }).pipe(
              withOnly(authContext),
              Effect.tapError((error) =>
                error._tag === "Unauthenticated" &&
                error.reason === "invalid_credentials" &&
                origin.address !== undefined
                  ? countFailure(origin.address, now)
                  : Effect.void
              )
            )
          )
          const state = yield* api(
            RateLimiter.checkRate.pipe(withOnly(Context.add(limiterContext, Principal.CurrentPrincipal, principal)))
          )
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(
              HttpServerResponse.setHeaders(response, {
                "ratelimit-limit": String(state.limit),
                "ratelimit-remaining": String(state.remaining),
                "ratelimit-reset": String(state.resetSeconds)
              })
            )
          )
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
