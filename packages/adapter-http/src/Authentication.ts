import { HttpApiMiddleware, HttpApiSecurity, HttpApp, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { Accounts, ApiKey, Authenticate, Principal, RateLimiter } from "@catalog-sync/core"
import { Context, Effect, Layer, Option, Schema, Tracer } from "effect"
import { Forbidden, InternalError, ServiceUnavailable, TooManyRequests, Unauthorized } from "./ApiErrors.js"
import { api } from "./ErrorResponses.js"

/**
 * Bearer-key authentication for every API endpoint but the OpenAPI document: resolves the principal,
 * checks the custom domain, and counts the request against the key's and company's rate limits.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@catalog-sync/adapter-http/Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden, TooManyRequests, ServiceUnavailable, InternalError),
  provides: Principal.CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "An API key of a connection: `Authorization: Bearer csk_<key id>_<secret>`.")
    )
  }
}) {}

const hostOf = (host: string | undefined) => host?.replace(/:\d+$/, "").replace(/^\[|\]$/g, "")

/**
 * Runs `effect` with exactly the services of `context` (plus the current parent span, so traces nest as
 * before), instead of `provideService` on the request's context: each `provideService` copies the whole
 * request context (every service of the app), which per request cost more than the lookups themselves.
 * Only for effects that need nothing else from the request's context.
 */
const withOnly = <R>(context: Context.Context<R>) => <A, E>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E> =>
  Effect.mapInputContext(effect, (outer: Context.Context<never>) => {
    const span = Context.getOption(outer, Tracer.ParentSpan)
    return Option.isSome(span) ? Context.add(context, Tracer.ParentSpan, span.value) : context
  })

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const accounts = yield* Accounts.Accounts
    const limiter = yield* RateLimiter.RateLimiter
    // The hasher of the layer's context (the server provides a synchronous one), else core's default.
    const hasher = yield* ApiKey.SecretHasher
    const authContext = Context.make(Accounts.Accounts, accounts).pipe(Context.add(ApiKey.SecretHasher, hasher))
    const limiterContext = Context.make(RateLimiter.RateLimiter, limiter)
    return Authentication.of({
      bearer: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const principal = yield* api(
            Authenticate.authenticate({ authorization: request.headers["authorization"], host: hostOf(request.headers["host"]) }).pipe(
              withOnly(authContext)
            )
          )
          const state = yield* api(RateLimiter.checkRate.pipe(
            withOnly(Context.add(limiterContext, Principal.CurrentPrincipal, principal))
          ))
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
            return yield* api(Effect.fail(new RateLimiter.RateLimited({
              message: `rate limit of ${state.limit} requests per minute reached; retry after ${state.resetSeconds} s`,
              retry_after: state.resetSeconds
            })))
          }
          return principal
        })
    })
  })
)
