import { Accounts, ApiKey, Authenticate, type Principal, RateLimiter } from "@catalog-sync/core"
import { Clock, Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { addressGroup, originOf, TrustedProxies } from "./ClientOrigin.js"
import { type Rendered, renderDomainError } from "./ErrorResponses.js"
import type { AdmittedRequest } from "./RequestId.js"

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

/** What admission made of a request: the request as admitted, and the answer when its key is refused. */
export interface Admitted {
  readonly request: AdmittedRequest
  /** The refusal (401, 403, 429, 503), answered in place of the request's; undefined when it goes on. */
  readonly refusal: Rendered | undefined
}

/**
 * Checks the key of a request: the failed-authentication throttle of its address, the key and its
 * custom domain (401/403), then the key's and company's rate limits (429). The RateLimit headers go on
 * the answer whatever it turns out to be. Never fails: a refusal is an answer of its own, so that the
 * request line still names the key (a key over its rate) and the client.
 */
export class Admission extends Context.Service<
  Admission,
  { readonly admit: (request: HttpServerRequest.HttpServerRequest, requestId: string) => Effect.Effect<Admitted> }
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
    const throttled = (seconds: number): Rendered => ({
      status: 429,
      error: {
        code: "authentication_throttled",
        message: `too many invalid API keys from this address; retry after ${seconds} s`,
        retry_after: seconds
      }
    })
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
    const refused = (
      error: { readonly code: string },
      requestId: string,
      authorization: string | undefined,
      client: string | undefined
    ) =>
      Effect.logDebug("authentication refused").pipe(
        Effect.annotateLogs({
          request_id: requestId,
          reason: error.code,
          key_id: presentedKeyId(authorization) ?? null,
          client: client ?? null
        })
      )
    return Admission.of({
      admit: (request, requestId) =>
        Clock.clockWith((clock) => {
          const origin = originOf(request, proxies)
          const client = origin.address === undefined ? undefined : addressGroup(origin.address)
          const now = clock.currentTimeMillisUnsafe()
          const refuse = (refusal: Rendered, principal?: Principal.Principal, answerHeaders = noHeaders): Admitted => ({
            request: { id: requestId, answerHeaders, client: origin.address, principal },
            refusal
          })
          const wait = client === undefined ? undefined : blocked.secondsLeft(client, now)
          if (wait !== undefined) return Effect.succeed(refuse(throttled(wait)))
          const authorization = request.headers["authorization"]
          const refusedKey = (error: AuthenticationError) =>
            Effect.as(
              Effect.andThen(
                refused(error, requestId, authorization, origin.address),
                error._tag === "Unauthenticated" && error.reason === "invalid_credentials" && client !== undefined
                  ? countFailure(client, now)
                  : Effect.void
              ),
              refuse(renderDomainError(error))
            )
          const rated = (principal: Principal.Principal) =>
            Effect.matchEffect(RateLimiter.checkRateWith(limiter, principal), {
              onFailure: (error) => Effect.succeed(refuse(renderDomainError(error), principal)),
              onSuccess: (rate): Effect.Effect<Admitted> => {
                const answerHeaders = {
                  "ratelimit-limit": String(rate.limit),
                  "ratelimit-remaining": String(rate.remaining),
                  "ratelimit-reset": String(rate.resetSeconds)
                }
                if (!rate.allowed) {
                  const limited = new RateLimiter.RateLimited({
                    message: `rate limit of ${rate.limit} requests per minute reached; retry after ${rate.resetSeconds} s`,
                    retry_after: rate.resetSeconds
                  })
                  return Effect.succeed(refuse(renderDomainError(limited), principal, answerHeaders))
                }
                return Effect.succeed({
                  request: { id: requestId, answerHeaders, client: origin.address, principal },
                  refusal: undefined
                })
              }
            })
          return Effect.matchEffect(authenticate({ authorization, host: origin.host }), {
            onFailure: refusedKey,
            onSuccess: rated
          })
        })
    })
  })
)

type AuthenticationError = Effect.Error<ReturnType<ReturnType<typeof Authenticate.authenticateWith>>>

const noHeaders: Readonly<Record<string, string>> = Object.freeze({})

/** The key id of a presented `Bearer csk_<id>_<secret>`, if it has that form. */
const presentedKeyId = (authorization: string | undefined) => {
  const token = authorization?.trim().replace(/^Bearer\s+/i, "")
  return token === undefined ? undefined : ApiKey.parse(token)?.keyId
}
