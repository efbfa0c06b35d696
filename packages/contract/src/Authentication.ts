import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Principal } from "@catalog-sync/core"
import { Schema } from "effect"
import { Forbidden, InternalError, ServiceUnavailable, TooManyRequests, Unauthorized } from "./ApiErrors.js"

/**
 * Bearer-key authentication for every API endpoint but the OpenAPI document: resolves the principal,
 * checks the custom domain, and counts the request against the key's and company's rate limits.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@catalog-sync/contract/Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden, TooManyRequests, ServiceUnavailable, InternalError),
  provides: Principal.CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An API key of a connection: `Authorization: Bearer csk_<key id>_<secret>`."
      )
    )
  }
}) {}
