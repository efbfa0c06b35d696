import { Accounts, ApiKey, Authenticate, type Principal, RateLimiter } from "@catalog-sync/core"
import { Clock, Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { ApiErrors } from "@catalog-sync/contract"
import { addressGroup, originOf, TrustedProxies } from "./ClientOrigin.js"
import { api } from "./ErrorResponses.js"
import { CurrentRequest, requestId } from "./RequestId.js"

/**
 * How many invalid keys (unknown, wrong secret, malformed) one client may present per minute: an IPv4
 * address, or an IPv6 /64 (`addressGroup`). Past it, every request of that client that needs a key is
 * answered 429 until the minute ends, before any key is looked up, so guessing keys costs the guesser and
 * not the server. `globalPerMinute` bounds the invalid keys of all clients together: past it (a guesser
 * spread over many addresses), a client's first invalid key blocks it for the rest of that minute, while
 * clients that present valid keys go on.
 */
export const AuthFailureBudget = Context.Reference<{ readonly perMinute: number; readonly globalPerMinute: number }>(
  "@catalog-sync/adapter-http/AuthFailureBudget",
  { defaultValue: () => ({ perMinute: 30, globalPerMinute: 300 }) }
)

const minute = 60_000

/** The rate-limiter bucket of all clients' invalid keys together. */
const everyClient = "auth-failures:*"

/**
 * Checks the key of a request: the failed-authentication throttle of its address, the key and its
 * custom domain (401/403), then the key's and company's rate limits (429). Adds the RateLimit headers
 * to the answer whatever it turns out to be.
 */
export class Admission extends Context.Service<
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
>()("@catalog-sync/adapter-http/Admission") {}

/** Clients over their budget, until the end of their window; bounded by dropping expired entries. */
const makeBlockedClients = () => {
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
    const proxies = yield* TrustedProxies
    const budget = yield* AuthFailureBudget
    // Core's rules over the services themselves: a request pays no context lookups or copies for them.
    const authenticate = Authenticate.authenticateWith(accounts, hasher)
    // Failures are counted through the RateLimiter (shared by every instance on PostgreSQL), but only
    // when a key fails; the block itself is kept here, so admitted requests pay one map lookup.
    const blocked = makeBlockedClients()
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
    // Logged when a client is blocked: once per client and window on each instance, never per request.
    const block = (client: string, seconds: number, now: number, cause: "client" | "all clients") =>
      Effect.andThen(
        Effect.sync(() => blocked.block(client, now + seconds * 1000, now)),
        Effect.logWarning("authentication throttled").pipe(
          Effect.annotateLogs({
            client,
            retry_after: seconds,
            budget: cause === "client" ? `${budget.perMinute}/min per client` : `${budget.globalPerMinute}/min in all`
          })
        )
      )
    // A failure past the client's own budget blocks it; any other counts toward all clients' budget too.
    const countFailure = (client: string, now: number) =>
      limiter.consume(`auth-failures:${client}`, budget.perMinute, minute, now).pipe(
        Effect.flatMap((own) =>
          !own.allowed
            ? block(client, own.resetSeconds, now, "client")
            : Effect.flatMap(limiter.consume(everyClient, budget.globalPerMinute, minute, now), (all) =>
                all.allowed ? Effect.void : block(client, all.resetSeconds, now, "all clients")
              )
        ),
        Effect.ignore
      )
    // The reason of a refused key, for an operator who looks for it (LOG_LEVEL=debug); the key id is the
    // public part of a key, never its secret.
    const refused = (error: { readonly code: string }, authorization: string | undefined, client: string | undefined) =>
      Effect.flatMap(requestId, (id) =>
        Effect.logDebug("authentication refused").pipe(
          Effect.annotateLogs({
            request_id: id,
            reason: error.code,
            key_id: presentedKeyId(authorization) ?? null,
            client: client ?? null
          })
        )
      )
    return Admission.of({
      admit: (request) =>
        Effect.gen(function* () {
          const origin = originOf(request, proxies)
          const state = yield* CurrentRequest
          const client = origin.address === undefined ? undefined : addressGroup(origin.address)
          state.client = origin.address
          const now = yield* Clock.currentTimeMillis
          if (client !== undefined) {
            const wait = blocked.secondsLeft(client, now)
            if (wait !== undefined) return yield* throttled(wait)
          }
          const authorization = request.headers["authorization"]
          const principal = yield* api(
            authenticate({ authorization, host: origin.host }).pipe(
              Effect.tapError((error) =>
                Effect.andThen(
                  refused(error, authorization, origin.address),
                  error._tag === "Unauthenticated" && error.reason === "invalid_credentials" && client !== undefined
                    ? countFailure(client, now)
                    : Effect.void
                )
              )
            )
          )
          state.admitted = principal
          const rate = yield* api(RateLimiter.checkRateWith(limiter, principal))
          const answer = state.answerHeaders
          answer["ratelimit-limit"] = String(rate.limit)
          answer["ratelimit-remaining"] = String(rate.remaining)
          answer["ratelimit-reset"] = String(rate.resetSeconds)
          if (!rate.allowed) {
            return yield* api(
              Effect.fail(
                new RateLimiter.RateLimited({
                  message: `rate limit of ${rate.limit} requests per minute reached; retry after ${rate.resetSeconds} s`,
                  retry_after: rate.resetSeconds
                })
              )
            )
          }
          return principal
        })
    })
  })
)

/** The key id of a presented `Bearer csk_<id>_<secret>`, if it has that form. */
const presentedKeyId = (authorization: string | undefined) => {
  const token = authorization?.trim().replace(/^Bearer\s+/i, "")
  return token === undefined ? undefined : ApiKey.parse(token)?.keyId
}
