import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Principal } from "@catalog-sync/core"
import { type Context, Effect } from "effect"
import type { Admission } from "./Admission.js"

/** A request the envelope answers itself, or undefined to leave it to HttpApi's router. */
export type FastRoute = (
  request: HttpServerRequest.HttpServerRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> | undefined

/**
 * A GET answered outside HttpApi's router when its whole URL matches `url`: admitted as the route's
 * security middleware admits it (401/403/429 and the RateLimit headers), then `answer` runs as that
 * principal with the match. Another method, or a URL `url` does not match, is left to the router.
 */
export const fastGetRoute =
  <E>(
    admission: Context.Tag.Service<typeof Admission>,
    url: RegExp,
    answer: (
      matched: RegExpExecArray
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, Principal.CurrentPrincipal>
  ): FastRoute =>
  (request) => {
    if (request.method !== "GET") return undefined
    const matched = url.exec(request.url)
    if (matched === null) return undefined
    return Effect.flatMap(admission.admit(request), (principal) =>
      Effect.provideService(answer(matched), Principal.CurrentPrincipal, principal)
    )
  }
