/**
 * The whole HTTP API inside the application's own server: the application's router keeps its own routes,
 * and `CatalogSync.routes` hands the API every path under `/api` (the API's paths carry `/api/v1`) and
 * `GET /health` and `/ready`, so both answer on one port. The API runs as an app of its own, so that its
 * envelope (request ids, the spec's error bodies) stays on its paths: the host's pages and 404s remain the host's.
 */
import { CatalogSync } from "@catalog-sync/adapter-http"
import { SharpImageProcessor } from "@catalog-sync/adapter-image-sharp"
import { layer as SqlitePorts } from "@catalog-sync/adapter-sqlite"
import { FsMediaStorage } from "@catalog-sync/adapter-storage-fs"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { join } from "node:path"

/** The application's own routes. */
export const HostRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    yield* router.add("GET", "/", HttpServerResponse.text("the host application's home page"))
    yield* router.add("GET", "/status", HttpServerResponse.jsonUnsafe({ app: "host", catalog_api: "/api/v1" }))
  })
)

/**
 * Every service and port the API needs, with the server's defaults: persistence on SQLite, media in
 * folders with images processed by sharp, and the job worker that runs imports and image processing.
 * `Admin` (companies, connections, keys) is there for the host's setup.
 */
export const ServicesLive = (dataDir: string) =>
  CatalogSync.layer({
    persistence: SqlitePorts({ filename: join(dataDir, "catalog.db") }),
    media: Layer.merge(
      FsMediaStorage.layer(join(dataDir, "media")),
      FsMediaStorage.stagingLayer(join(dataDir, "staging"))
    ),
    images: SharpImageProcessor.layer
  })

/** The host's routes and the API's, served on a Node server; the host writes no log line per request, and none when it listens. */
export const HostServerLive = (options: { readonly port: number; readonly host: string }) =>
  HttpRouter.serve(Layer.merge(HostRoutes, CatalogSync.routes), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, options))
  )
