/**
 * The whole HTTP API inside the application's own server: the application's router keeps its own routes
 * and mounts the API under `/api` (the API's paths carry `/api/v1`), so both answer on one port.
 */
import { ApiLive, Readiness } from "@catalog-sync/adapter-http"
import { SharpImageProcessor } from "@catalog-sync/adapter-image-sharp"
import { layer as SqlitePorts } from "@catalog-sync/adapter-sqlite"
import { FsMediaStorage } from "@catalog-sync/adapter-storage-fs"
import {
  Admin,
  CatalogService,
  ChangeFeed,
  Ids,
  ImportService,
  InMemoryRateLimiter,
  InventoryService,
  JobKinds,
  JobService,
  JobSignal,
  JobWorker,
  MediaService
} from "@catalog-sync/core"
import { HttpApiBuilder, type HttpApp, HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { join } from "node:path"

/** The application's own router: its pages, and the API mounted under /api with its full paths. */
export const hostRouter = <E, R>(api: HttpApp.Default<E, R>) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", HttpServerResponse.text("the host application's home page")),
    HttpRouter.get("/status", HttpServerResponse.unsafeJson({ app: "host", catalog_api: "/api/v1" })),
    HttpRouter.mountApp("/api", api, { includePrefix: true })
  )

/**
 * Every service and port the API needs: the core's use cases, persistence on SQLite, media in folders
 * with images processed by sharp, an in-process rate limiter, the readiness probe, and a job worker that
 * runs imports and image processing. `Admin` (companies, connections, keys) is there for the host's setup.
 */
export const ServicesLive = (dataDir: string) =>
  Layer.mergeAll(
    ChangeFeed.ChangeFeed.Default,
    InventoryService.InventoryService.Default,
    JobService.JobService.Default,
    Layer.scopedDiscard(JobWorker.runWorkers({ workers: 1, leaseMillis: 30_000, pollMillis: 250 })),
    InMemoryRateLimiter.layer,
    Admin.Admin.Default,
    Layer.effect(
      Readiness,
      Effect.map(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`SELECT 1`))
    )
  ).pipe(
    // Imports and media register their job handlers for the workers and the job endpoints.
    Layer.provideMerge(JobKinds.layer),
    Layer.provideMerge(Layer.mergeAll(ImportService.ImportService.Default, MediaService.MediaService.Default)),
    Layer.provideMerge(CatalogService.CatalogService.Default),
    Layer.provideMerge(
      Layer.mergeAll(
        FsMediaStorage.layer(join(dataDir, "media")),
        FsMediaStorage.stagingLayer(join(dataDir, "staging")),
        SharpImageProcessor.layer,
        JobSignal.layer,
        Ids.IdsLive
      )
    ),
    Layer.provideMerge(SqlitePorts({ filename: join(dataDir, "catalog.db") }))
  )

/** The API's app, built from `ApiLive` and served by the host's router on a Node server. */
export const HostServerLive = (options: { readonly port: number; readonly host: string }) =>
  Layer.unwrapEffect(Effect.map(HttpApiBuilder.httpApp, (api) => HttpServer.serve(hostRouter(api)))).pipe(
    Layer.provide(ApiLive),
    // The router and middleware registry that ApiLive fills and httpApp reads: one of each per server.
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provideMerge(NodeHttpServer.layer(createServer, options))
  )
