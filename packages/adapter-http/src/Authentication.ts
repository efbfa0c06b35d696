import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest, OpenApi } from "@effect/platform"
import { Principal } from "@catalog-sync/core"
import { Effect, FiberRef, Layer, Schema } from "effect"
import { Admission, admittedPrincipal } from "./Admission.js"
import { Forbidden, InternalError, ServiceUnavailable, TooManyRequests, Unauthorized } from "./ApiErrors.js"

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

/**
 * The Authentication middleware: a request with a body was admitted by the Envelope before its body was
 * read, and its principal is reused; any other request is admitted here.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Admission, (admission) =>
    Authentication.of({
      bearer: () =>
        Effect.flatMap(FiberRef.get(admittedPrincipal), (admitted) =>
          admitted !== undefined ? Effect.succeed(admitted) : Effect.flatMap(HttpServerRequest.HttpServerRequest, admission.admit)
        )
    })
  )
)
