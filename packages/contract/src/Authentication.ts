import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { Principal } from "@catalog-sync/core"
import { Forbidden, InternalError, ServiceUnavailable, TooManyRequests, Unauthorized } from "./ApiErrors.js"

/**
 * Bearer-key authentication for every API endpoint but the OpenAPI document: resolves the principal,
 * checks the custom domain, and counts the request against the key's and company's rate limits.
 */
export class Authentication extends HttpApiMiddleware.Service<
  Authentication,
  { provides: Principal.CurrentPrincipal }
>()("@catalog-sync/contract/Authentication", {
  error: [Unauthorized, Forbidden, TooManyRequests, ServiceUnavailable, InternalError],
  security: {
    // `http({ scheme: "bearer" })` is `bearer` (schemes compare case-insensitively), documented in lower case.
    bearer: HttpApiSecurity.http({ scheme: "bearer" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An API key of a connection: `Authorization: Bearer csk_<key id>_<secret>`."
      )
    )
  }
}) {}
