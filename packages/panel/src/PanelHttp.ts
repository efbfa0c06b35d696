/**
 * The company panel on an `HttpRouter`: server-rendered pages under `base` (default `/panel`) over the
 * core's `CompanyPanel` use cases. It needs `CompanyPanel` (and its admin services) from the host, and
 * reads the trusted proxies (`TrustedProxies`) to tell the client's address and whether it used TLS.
 */
import type { CompanyPanel } from "@catalog-sync/core"
import { Effect, type Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { type Asset, script, stylesheet } from "./Assets.js"
import { addAuditRoutes } from "./AuditRoutes.js"
import { addCompanyRoutes } from "./CompanyRoutes.js"
import { addConnectionRoutes } from "./ConnectionRoutes.js"
import { addFallbackRoutes } from "./FallbackRoutes.js"
import type { Base } from "./Layout.js"
import { addPeopleRoutes } from "./PeopleRoutes.js"
import { panelRouter } from "./PanelRouter.js"
import { addSignInRoutes } from "./SignInRoutes.js"
import { securityHeaders } from "./Visit.js"

export type { Base } from "./Layout.js"

/** The paths the panel serves under `base`, for the host's route table: everything below it. */
export const paths = (base: Base = "/panel") => [base, `${base}/*`] as const

const serveAsset = (asset: Asset) =>
  HttpServerResponse.text(asset.body, {
    contentType: asset.contentType,
    // Named by their content: a new version has a new name.
    headers: { ...securityHeaders, "cache-control": "public, max-age=31536000, immutable" }
  })

/** The panel's routes under `base`, added to the host's router. */
export const layer = (
  options: { readonly base?: Base } = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | CompanyPanel.CompanyPanel> => {
  const base = options.base ?? "/panel"
  return HttpRouter.use((host) =>
    Effect.gen(function* () {
      const router = yield* panelRouter(host)
      yield* router.add("GET", `${base}/${stylesheet.path}`, () => Effect.succeed(serveAsset(stylesheet)))
      yield* router.add("GET", `${base}/${script.path}`, () => Effect.succeed(serveAsset(script)))
      yield* addSignInRoutes(router, base)
      yield* addCompanyRoutes(router, base)
      yield* addConnectionRoutes(router, base)
      yield* addPeopleRoutes(router, base)
      yield* addAuditRoutes(router, base)
      yield* addFallbackRoutes(router, base)
    })
  ) as Layer.Layer<never, never, HttpRouter.HttpRouter | CompanyPanel.CompanyPanel>
}
