import { Api } from "@catalog-sync/contract"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { resolve } from "node:path"
import { loadGuides, type PortalFile, render, repositoryUrl, scalarBundle } from "./Portal.js"

/** The portal of this API: its OpenAPI document and the guides in `docsDir`, rendered once; no database, no network. */
export const renderPortal = (docsDir: string): ReadonlyArray<PortalFile> =>
  render({
    spec: OpenApi.fromApi(Api),
    guides: loadGuides(docsDir),
    repository: repositoryUrl(docsDir),
    scalar: scalarBundle()
  })

/**
 * The portal loads its own scripts, styles and search index and nothing from the network; the reference
 * renderer (Scalar) compiles WebAssembly (never JavaScript from text), sets inline styles, shows data: images, and "Test Request" calls the API on this
 * origin. No page may be framed (clickjacking of the key field) and no address leaves in a Referer.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

export const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
} as const

/**
 * Serves rendered portal files under `path` (default `/docs`) on the API's router. `/docs` redirects
 * to `/docs/` so that the pages' relative links, written for any static host, resolve; so does `/`.
 */
export const layer = (
  files: ReadonlyArray<PortalFile>,
  options: { readonly path?: `/${string}` } = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const base = options.path ?? "/docs"
  return HttpRouter.use((router) =>
    Effect.gen(function* () {
      // The server's root has nothing of its own: a person opening it wants the portal.
      yield* router.add("GET", "/", HttpServerResponse.redirect(`${base}/`, { status: 302 }))
      for (const file of files) {
        const response = HttpServerResponse.text(file.body, {
          contentType: file.contentType,
          headers: { "cache-control": "public, max-age=300", ...securityHeaders }
        })
        yield* router.add("GET", `${base}/${file.path}`, response)
        if (file.path !== "index.html") continue
        // The router matches `/docs` and `/docs/` alike; only the latter resolves the relative links.
        yield* router.add("GET", base, (request) =>
          Effect.succeed(
            request.url.split("?")[0]!.endsWith("/")
              ? response
              : HttpServerResponse.redirect(`${base}/`, { status: 301 })
          )
        )
      }
    })
  )
}

/**
 * The portal of this API at `/docs`, rendered once while the layer builds from the OpenAPI document and
 * the guides in `docsDir` (the repository's `docs` when started from its root).
 */
export const layerFromDocs = (docsDir: string): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const files = renderPortal(resolve(docsDir))
      if (!files.some((file) => file.path.startsWith("guides/"))) {
        yield* Effect.logWarning(
          `no guides found in ${resolve(docsDir)}; the portal at /docs shows the API reference only (set DOCS_DIR)`
        )
      }
      return layer(files)
    })
  )
