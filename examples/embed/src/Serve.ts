/**
 * The whole HTTP API inside the application's own server: the application's router keeps its own routes
 * and hands every path under `/api` to the API (the API's paths carry `/api/v1`), so both answer on one
 * port. The API runs on a router of its own, so that its envelope (request ids, the spec's error bodies)
 * stays on its paths: the host's pages and 404s remain the host's.
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
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { join } from "node:path"

/** The application's own routes: its pages, and the API's app for every path under /api, with its full path. */
export const hostRouter = <E, R>(api: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      yield* router.add("GET", "/", HttpServerResponse.text("the host application's home page"))
      yield* router.add("GET", "/status", HttpServerResponse.jsonUnsafe({ app: "host", catalog_api: "/api/v1" }))
      yield* router.add("*", "/api/*", api)
    })
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
    Layer.effectDiscard(JobWorker.runWorkers({ workers: 1, leaseMillis: 30_000, pollMillis: 250 })),
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

/** The API's app, built from `ApiLive` on a router of its own, and served by the host's router on a Node server. */
export const HostServerLive = (options: { readonly port: number; readonly host: string }) =>
  Layer.unwrap(
    Effect.map(HttpRouter.toHttpEffect(ApiLive), (api) =>
      // The host writes no log line per request, and none when it listens.
      HttpRouter.serve(hostRouter(api), { disableLogger: true, disableListenLog: true })
    )
  ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, options)))
