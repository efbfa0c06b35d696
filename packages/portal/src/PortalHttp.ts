import { Api } from "@catalog-sync/contract"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerError, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { resolve } from "node:path"
import * as PackageReference from "./PackageReference.js"
import { loadGuides, repositoryUrl } from "./Guides.js"
import { type PortalFile, render } from "./Portal.js"
import { scalarBundle } from "./ScalarBundle.js"
import { encodings, notModified, type BrotliCopies } from "./PortalEncoding.js"
import * as Precompressed from "./Precompressed.js"

/**
 * The portal of this API: its OpenAPI document and the guides in `docsDir`, rendered once, linking the
 * packages' API reference when `npm run docs` has built it; no database, no network.
 */
export const renderPortal = (docsDir: string): ReadonlyArray<PortalFile> =>
  render({
    spec: OpenApi.fromApi(Api),
    guides: loadGuides(docsDir),
    repository: repositoryUrl(docsDir),
    scalar: scalarBundle(),
    apiReference: PackageReference.isBuilt(PackageReference.directoryOf(docsDir))
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
 * How long a browser keeps a file. A content-named asset never changes: a year, not even revalidated. A
 * page (and openapi.json) names the assets of the running version: asked again each time, answered 304
 * while its ETag matches.
 */
export const cacheControl = (file: PortalFile): string =>
  file.immutable === true ? "public, max-age=31536000, immutable" : "no-cache"

/** Answers GET of one file: compressed as the request accepts, 304 to a matching If-None-Match. */
const serveFile = (file: PortalFile, precompressed: BrotliCopies | undefined) => {
  const representations = encodings(file.body, precompressed)
  return (request: HttpServerRequest.HttpServerRequest) =>
    Effect.map(
      Effect.promise(() => representations.select(request.headers["accept-encoding"])),
      (chosen) => {
        // Shared caches keep one copy per encoding.
        const headers = {
          "cache-control": cacheControl(file),
          etag: chosen.etag,
          vary: "accept-encoding",
          ...securityHeaders
        }
        if (notModified(request.headers["if-none-match"], chosen.etag))
          return HttpServerResponse.empty({ status: 304, headers })
        return HttpServerResponse.uint8Array(chosen.body, {
          contentType: file.contentType,
          headers: chosen.encoding === "identity" ? headers : { ...headers, "content-encoding": chosen.encoding }
        })
      }
    )
}

const routeNotFound = (request: HttpServerRequest.HttpServerRequest) =>
  new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) })

/** Answers GET under `<base>/api/` from the packages' API reference in `directory`; what is not there is not found. */
const servePackageReference = (base: string, directory: string) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(
    Effect.promise(() => PackageReference.read(directory, request.url.split("?")[0]!.slice(`${base}/api/`.length))),
    (file) => {
      if (file === undefined) return Effect.fail(routeNotFound(request))
      const hashes = file.contentType.startsWith("text/html")
        ? PackageReference.inlineScriptHashes(new TextDecoder().decode(file.body))
        : []
      const policy = contentSecurityPolicy.replace("script-src 'self'", ["script-src 'self'", ...hashes].join(" "))
      return Effect.succeed(
        HttpServerResponse.uint8Array(file.body, {
          contentType: file.contentType,
          headers: { ...securityHeaders, "content-security-policy": policy, "cache-control": "no-cache" }
        })
      )
    }
  )

/** What the portal's routes need of the router: a file the packages' API reference lacks is a route not found. */
export type Requires = HttpRouter.HttpRouter | HttpRouter.Request<"Error", HttpServerError.HttpServerError>

/**
 * Serves rendered portal files under `path` (default `/docs`) on the API's router, and the packages' API
 * reference under `<path>/api/` from `packageReference` when given. `/docs` redirects to `/docs/` so
 * that the pages' relative links, written for any static host, resolve; so does `/`. The files'
 * brotli copies are read from `precompressed` (a folder of ./Precompressed.ts) when there.
 */
export const layer = (
  files: ReadonlyArray<PortalFile>,
  options: { readonly path?: `/${string}`; readonly packageReference?: string; readonly precompressed?: string } = {}
): Layer.Layer<never, never, Requires> => {
  const base = options.path ?? "/docs"
  const precompressed = options.precompressed === undefined ? undefined : Precompressed.reader(options.precompressed)
  return HttpRouter.use((router) =>
    Effect.gen(function* () {
      // The server's root has nothing of its own: a person opening it wants the portal.
      yield* router.add("GET", "/", HttpServerResponse.redirect(`${base}/`, { status: 302 }))
      for (const file of files) {
        const serve = serveFile(file, precompressed)
        yield* router.add("GET", `${base}/${file.path}`, serve)
        if (file.path !== "index.html") continue
        // The router matches `/docs` and `/docs/` alike; only the latter resolves the relative links.
        yield* router.add("GET", base, (request) =>
          request.url.split("?")[0]!.endsWith("/")
            ? serve(request)
            : Effect.succeed(HttpServerResponse.redirect(`${base}/`, { status: 301 }))
        )
      }
      if (options.packageReference !== undefined)
        yield* router.add("GET", `${base}/api/*`, servePackageReference(base, options.packageReference))
    })
  )
}

/**
 * The portal of this API at `/docs`, rendered once while the layer builds from the OpenAPI document and
 * the guides in `docsDir` (the repository's `docs` when started from its root), with the packages' API
 * reference at `/docs/api/` once `npm run docs` has written it to `docsDir/api`, and the brotli
 * copies the portal's build made.
 */
export const layerFromDocs = (docsDir: string): Layer.Layer<never, never, Requires> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const files = renderPortal(resolve(docsDir))
      if (!files.some((file) => file.path.startsWith("guides/"))) {
        yield* Effect.logWarning(
          `no guides found in ${resolve(docsDir)}; the portal at /docs shows the API reference only (set DOCS_DIR)`
        )
      }
      const precompressed = Precompressed.directory()
      return layer(files, {
        packageReference: PackageReference.directoryOf(resolve(docsDir)),
        ...(precompressed === undefined ? {} : { precompressed })
      })
    })
  )
