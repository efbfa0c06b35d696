import { HttpApiMiddleware, HttpApiSecurity, HttpApp, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { Accounts, Authenticate, Principal, RateLimiter } from "@catalog-sync/core"
import { Effect, Layer, Schema } from "effect"
import { Forbidden, InternalError, ServiceUnavailable, TooManyRequests, Unauthorized } from "./ApiErrors.js"
import { api } from "./Failures.js"

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

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const accounts = yield* Accounts.Accounts
    const limiter = yield* RateLimiter.RateLimiter
    return Authentication.of({
      bearer: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const principal = yield* api(
            Authenticate.authenticate({ authorization: request.headers["authorization"], host: hostOf(request.headers["host"]) }).pipe(
              Effect.provideService(Accounts.Accounts, accounts)
            )
          )
          const state = yield* api(RateLimiter.checkRate.pipe(
            Effect.provideService(Principal.CurrentPrincipal, principal),
            Effect.provideService(RateLimiter.RateLimiter, limiter)
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
