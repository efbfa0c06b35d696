/**
 * The router the panel's routes are added to: the host's, with the services the panel's handlers use
 * (`CompanyPanel`, the trusted proxies) taken once when the routes are added, as the host provides them
 * to the panel's layer, and given to every handler; over TLS each answer carries HSTS.
 */
import { CompanyPanel } from "@catalog-sync/core"
import { TrustedProxies } from "@catalog-sync/adapter-http"
import { Effect } from "effect"
import { type HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { overTls } from "./Session.js"

/** The HSTS policy of the panel's answers over TLS: a year. */
export const strictTransportSecurity = "max-age=31536000"

type Handler<E, R> = (
  request: HttpServerRequest.HttpServerRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

export interface PanelRouter {
  readonly add: <E, R>(
    method: "GET" | "POST" | "*",
    path: `/${string}`,
    handler: Handler<E, R>
  ) => Effect.Effect<void, never, Exclude<R, CompanyPanel.CompanyPanel>>
}

/** `router`, with `CompanyPanel` and the trusted proxies of this layer's context given to each handler. */
export const panelRouter = (router: HttpRouter.HttpRouter) =>
  Effect.gen(function* () {
    const panel = yield* CompanyPanel.CompanyPanel
    const proxies = yield* TrustedProxies
    const add: PanelRouter["add"] = (method, path, handler) =>
      router.add(method, path, (request) =>
        handler(request).pipe(
          // Over TLS, the browser is told to come back only over TLS, for a year (an answer over plain HTTP
          // carries no such header: browsers ignore it there).
          Effect.map((response) =>
            overTls(request, proxies)
              ? HttpServerResponse.setHeader(response, "strict-transport-security", strictTransportSecurity)
              : response
          ),
          Effect.provideService(CompanyPanel.CompanyPanel, panel),
          Effect.provideService(TrustedProxies, proxies)
        )
      ) as Effect.Effect<void, never, never>
    return { add } satisfies PanelRouter
  })
