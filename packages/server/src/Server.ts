import { NodeHttpServer } from "@effect/platform-node"
import { ApiLive, CatalogSync, Readiness, RouteTable } from "@catalog-sync/adapter-http"
import { PortalHttp } from "@catalog-sync/portal"
import { layer as pgPorts } from "@catalog-sync/adapter-pg"
import { type PersistencePorts, SqlRateLimiter } from "@catalog-sync/adapter-sql"
import { layer as sqlitePorts } from "@catalog-sync/adapter-sqlite"
import { IdempotencyStore, InMemoryRateLimiter, JobStore } from "@catalog-sync/core"
import { SharpImageProcessor } from "@catalog-sync/adapter-image-sharp"
import { FsMediaStorage } from "@catalog-sync/adapter-storage-fs"
import type { S3Settings } from "@catalog-sync/adapter-storage-s3"
import { Clock, type Config, Duration, Effect, Layer, Option, References } from "effect"
import { HttpMiddleware, HttpRouter, type HttpServerResponse } from "effect/http"
import { type Migrator, SqlClient, type SqlConnection, type SqlError } from "effect/sql"
import { type ImageProcessor, type MediaErrors, type MediaStorage, RateLimiter } from "@catalog-sync/core"
import { createServer } from "node:http"
import { answerUnparsableRequests } from "./UnparsableRequests.js"
import { continueOnlyBodiesWithinLimits } from "./ExpectContinue.js"
import { EdgeLimitsLive, EdgeReferencesLive } from "./Edge.js"
import { join } from "node:path"
import { metricsEnabled, RuntimeConfig, type RuntimeSettings, type ServerConfig } from "./ServerConfig.js"
import * as InstrumentedPorts from "./Observability/InstrumentedPorts.js"
import * as MetricsEndpoint from "./Observability/MetricsEndpoint.js"
import * as RequestMetrics from "./Observability/RequestMetrics.js"
import * as TracedPorts from "./Observability/TracedPorts.js"
import * as Tracing from "./Observability/Tracing.js"
import * as Resource from "@effect/opentelemetry/Resource"
import { loggingChanges } from "./Readiness.js"
import { checkFolders, databaseFile, mediaDir, StartupLog } from "./Startup.js"

export { databaseFile, mediaDir } from "./Startup.js"

/**
 * Reports at start whether the bucket answers with these credentials. The server starts either way: the
 * catalog API does not depend on media, and a refused write pauses the company's media job (an operator
 * fixes the credentials and retries it, see docs/deploy.md).
 */
const S3Probe = (probe: Effect.Effect<void, MediaErrors.MediaStorageError>, settings: S3Settings.S3Settings) =>
  // In the background: an endpoint that does not answer must not hold the start up for its timeouts.
  Layer.effectDiscard(
    Effect.forkScoped(
      probe.pipe(
        Effect.andThen(Effect.logInfo("media storage: S3 bucket reachable")),
        Effect.catch((error) =>
          Effect.logWarning(
            error.reason === "unavailable"
              ? "media storage: the S3 endpoint does not answer; uploads fail with 503 until it does"
              : "media storage: S3 refuses access to the bucket (or it does not exist); uploads fail and image processing pauses until the configuration is fixed"
          ).pipe(Effect.annotateLogs({ bucket: settings.bucket, error: error.message }))
        ),
        Effect.annotateLogs({ bucket: settings.bucket })
      )
    )
  )

/** The processed-media storage alone, as MEDIA_STORAGE selects it (the admin CLI's storage check). */
export const MediaStorageLive = (config: ServerConfig): Layer.Layer<MediaStorage.MediaStorage> => {
  const storage = config.mediaStorage ?? { kind: "fs" as const }
  return storage.kind === "s3"
    ? Layer.unwrap(
        Effect.map(
          Effect.promise(() => import("@catalog-sync/adapter-storage-s3")),
          ({ S3MediaStorage }) => S3MediaStorage.layer(storage.s3)
        )
      )
    : FsMediaStorage.layer(mediaDir(config))
}

/** The S3 media ports; the adapter (and the AWS SDK) is loaded only when MEDIA_STORAGE=s3. */
const S3PortsLive = (settings: S3Settings.S3Settings) =>
  Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("@catalog-sync/adapter-storage-s3")),
      ({ S3MediaStorage }) =>
        Layer.merge(S3MediaStorage.layer(settings), S3Probe(S3MediaStorage.probe(settings), settings))
    )
  )

/**
 * The media ports, images processed with sharp. MEDIA_STORAGE=fs: files under MEDIA_DIR, uploads staged
 * under `<DATA_DIR>/staging`. MEDIA_STORAGE=s3: both in one bucket, shared by every instance.
 */
const MediaPortsLive = (config: ServerConfig): Layer.Layer<MediaPorts> => {
  const storage = config.mediaStorage ?? { kind: "fs" as const }
  return storage.kind === "s3"
    ? Layer.mergeAll(S3PortsLive(storage.s3), SharpImageProcessor.layer)
    : Layer.mergeAll(
        FsMediaStorage.layer(mediaDir(config)),
        FsMediaStorage.stagingLayer(join(config.dataDir, "staging")),
        SharpImageProcessor.layer
      )
}

/** The media ports the server runs with. */
export type MediaPorts = MediaStorage.MediaStorage | MediaStorage.MediaStaging | ImageProcessor.ImageProcessor

/**
 * Layers that replace the server's own, for embedding and for tests that inject faults (a storage that
 * refuses writes, an image processor that stalls). Each one wraps or replaces the default it is given.
 */
export interface ServerOverrides {
  readonly media?: (defaults: Layer.Layer<MediaPorts>) => Layer.Layer<MediaPorts>
  /**
   * Wraps the database connections every statement of the server runs on (a connection that fails the
   * N-th statement, or writes each one down): the repositories', the job workers' and the key lookups'.
   */
  readonly sql?: ((connection: SqlConnection.Connection) => SqlConnection.Connection) | undefined
}

/**
 * SQLite serves one instance (docs/deploy.md), so at its start no request or job of another process can
 * be running: the idempotency claims and jobs still marked running were cut off by a crash. Giving them
 * back at once lets the clients' retries and the jobs go on now, not after their leases (60 s, and
 * JOB_LEASE_SECONDS).
 */
const resumeCutOffWork = Layer.effectDiscard(
  Effect.gen(function* () {
    const jobs = yield* JobStore.JobStore
    const idempotency = yield* IdempotencyStore.IdempotencyStore
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    const released = { jobs: yield* jobs.releaseAll(at), idempotency_claims: yield* idempotency.releaseAll }
    if (released.jobs + released.idempotency_claims > 0)
      yield* Effect.logWarning("work cut off by the last stop is resumed", released)
  }).pipe(Effect.orDie)
)

/**
 * The database the server runs on, migrated while the layer builds: PostgreSQL when `DATABASE_URL` is
 * set (several instances may share it and start together), else SQLite under the data folder. On
 * PostgreSQL it also gives `PgPoolUse`, which the metrics scrape reads when present.
 */
export const PersistenceLive = (
  config: ServerConfig,
  wrapConnection?: (connection: SqlConnection.Connection) => SqlConnection.Connection
): Layer.Layer<
  PersistencePorts | SqlClient.SqlClient,
  SqlError.SqlError | Migrator.MigrationError | Config.ConfigError
> =>
  config.postgres === undefined
    ? sqlitePorts({ filename: databaseFile(config), wrapConnection })
    : pgPorts({
        url: config.postgres.url,
        poolSize: config.postgres.poolSize,
        statementTimeout: Duration.millis(config.postgres.statementTimeoutMillis),
        wrapConnection
      })

/** GET /ready asks the database; a change of its answer is logged once (see `loggingChanges`). */
const ReadinessLive = Layer.effect(
  Readiness,
  Effect.flatMap(SqlClient.SqlClient, (sql) => loggingChanges(Effect.asVoid(sql`SELECT 1`)))
)

/**
 * The rate limiter: in memory for the single SQLite instance; on PostgreSQL the database-shared one
 * (`rate_windows`), since instances behind a load balancer must count each key's requests together.
 * For benchmarks only, BENCHMARK_RATE_LIMIT_MULTIPLIER (default 1 = the documented limits) multiplies the
 * per-key and per-company limits, so that one company can be driven past 600 requests a minute (bench
 * scenario 4). Never set it in production.
 */
const RateLimiterLive = (config: ServerConfig, runtime: RuntimeSettings) => {
  const base: Layer.Layer<RateLimiter.RateLimiter, never, SqlClient.SqlClient> =
    config.postgres === undefined ? InMemoryRateLimiter.layer : SqlRateLimiter.layer
  const factor = runtime.rateLimitMultiplier
  const limiter =
    factor === 1
      ? base
      : Layer.effect(
          RateLimiter.RateLimiter,
          Effect.map(RateLimiter.RateLimiter, (inner) =>
            RateLimiter.RateLimiter.of({
              consume: (bucket, limit, window, now) => inner.consume(bucket, limit * factor, window, now),
              consumeInOrder: (buckets, window, now) =>
                RateLimiter.consumeInOrder(
                  inner,
                  buckets.map(({ bucket, limit }) => ({ bucket, limit: limit * factor })),
                  window,
                  now
                )
            })
          )
        ).pipe(Layer.provide(base))
  return observed(runtime, limiter, InstrumentedPorts.rateLimiter, undefined)
}

/**
 * `base` with its ports re-provided through the tracing decorators (when tracing is on) and then the
 * metrics decorators (when metrics are on); unchanged when both are off, so that neither costs anything then.
 */
const observed = <A, E, R, M, T>(
  runtime: RuntimeSettings,
  base: Layer.Layer<A, E, R>,
  measured: Layer.Layer<M, never, M> | undefined,
  traced: Layer.Layer<T, never, T> | undefined
): Layer.Layer<A, E, R> => {
  const withSpans =
    traced !== undefined && Option.isSome(runtime.tracing)
      ? (traced as unknown as Layer.Layer<never, never, A>).pipe(Layer.provideMerge(base))
      : base
  return measured !== undefined && metricsEnabled(runtime.metrics)
    ? (measured as unknown as Layer.Layer<never, never, A>).pipe(Layer.provideMerge(withSpans))
    : withSpans
}

/** The media ports with image processing measured and traced, when asked. */
const measuredMedia = (runtime: RuntimeSettings, media: Layer.Layer<MediaPorts>): Layer.Layer<MediaPorts> =>
  observed(runtime, media, InstrumentedPorts.imageProcessor, TracedPorts.imageProcessor)

/** The persistence ports with transactions, idempotency claims, import records and key lookups measured and traced, when asked. */
const measuredPersistence = <E>(
  runtime: RuntimeSettings,
  persistence: Layer.Layer<PersistencePorts | SqlClient.SqlClient, E>
) =>
  observed(
    runtime,
    persistence,
    Layer.mergeAll(InstrumentedPorts.transactor, InstrumentedPorts.idempotencyStore, InstrumentedPorts.importStore),
    Layer.mergeAll(TracedPorts.accounts, TracedPorts.idempotencyStore)
  )

/**
 * Metrics (off unless METRICS_PORT or METRICS_ON_MAIN_PORT is set): Effect's metrics go through the
 * OpenTelemetry SDK to Prometheus text at GET /metrics, on a port of its own and/or the API's port (that
 * route is on the API's router, see `serverWith`).
 */
const MetricsLive = (runtime: RuntimeSettings) => {
  const settings = runtime.metrics
  const port = settings.port
  const separate = port._tag === "Some" ? MetricsEndpoint.SeparatePort(port.value, settings.host) : Layer.empty
  return separate.pipe(
    Layer.provideMerge(MetricsEndpoint.MetricsScrapeLive),
    Layer.provide(Resource.layer({ serviceName: settings.serviceName, serviceVersion: "0.1.0" }))
  )
}

/** The runtime settings of `config`, or from the environment when the caller left them out. */
const runtimeOf = (config: ServerConfig): Effect.Effect<RuntimeSettings, Config.ConfigError> =>
  config.runtime === undefined ? RuntimeConfig : Effect.succeed(config.runtime)

/**
 * Every service the API needs, with their persistence, media ports and the job workers, as the
 * configuration and the runtime settings ask: `CatalogSync.layer`, the composition embedders use, given
 * the server's adapters, its rate limiter and readiness probe, and its metrics and spans when they are on.
 */
export const ServicesLive = (config: ServerConfig, overrides: ServerOverrides = {}) =>
  Layer.unwrap(Effect.map(runtimeOf(config), (runtime) => servicesWith(config, runtime, overrides)))

const servicesWith = (config: ServerConfig, runtime: RuntimeSettings, overrides: ServerOverrides) => {
  const persistence = measuredPersistence(runtime, PersistenceLive(config, overrides.sql))
  const media = measuredMedia(
    runtime,
    overrides.media === undefined ? MediaPortsLive(config) : overrides.media(MediaPortsLive(config))
  )
  return CatalogSync.layer({
    persistence: config.postgres === undefined ? resumeCutOffWork.pipe(Layer.provideMerge(persistence)) : persistence,
    // One layer gives both (an override may replace either); a build makes it once, as it is one value.
    media,
    images: media,
    rateLimiter: RateLimiterLive(config, runtime),
    readiness: ReadinessLive,
    jobWorkers: runtime.jobWorkers,
    jobLease: runtime.jobLease,
    jobPollMillis: runtime.jobPollMillis,
    jobRetention: runtime.jobRetention,
    idempotencyLease: runtime.idempotencyLease,
    mediaProcessingTimeout: runtime.mediaProcessingTimeout,
    jobKinds: (layer) => observed(runtime, layer, InstrumentedPorts.jobKinds, TracedPorts.jobKinds)
  })
}

/**
 * The HTTP server: the API on a Node server. On shutdown the server stops accepting connections,
 * lets running requests finish for up to `shutdownTimeoutSeconds`, then closes what is left; the
 * database is provided outside the server so that it closes last. The folders it writes are checked
 * first, and the start, the beginning and the end of shutdown are logged.
 */
export const ServerLive = (config: ServerConfig, overrides: ServerOverrides = {}) =>
  Layer.unwrap(Effect.map(runtimeOf(config), (runtime) => serverWith(config, runtime, overrides)))

/**
 * The route table of the server: the contract's endpoints and the routes it serves outside them, the
 * portal and, on the main port when configured, the metrics.
 */
const routeTableOf = (runtime: RuntimeSettings) =>
  RouteTable.make([
    { method: "*", path: "/docs", template: "/docs/*" },
    { method: "*", path: "/docs/*", template: "/docs/*" },
    ...(runtime.metrics.onMainPort ? [{ method: "GET", path: "/metrics", template: "/metrics" } as const] : [])
  ])

const serverWith = (config: ServerConfig, runtime: RuntimeSettings, overrides: ServerOverrides) => {
  const routes = routeTableOf(runtime)
  const server = continueOnlyBodiesWithinLimits(answerUnparsableRequests(createServer()), routes)
  const drainDeadline = Layer.effectDiscard(
    Effect.addFinalizer(() =>
      Effect.sync(() => setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutSeconds * 1000).unref())
    )
  )
  // Acquired first, so released last: after the database has closed. A start that failed is reported by the caller.
  const started = { running: false }
  const stopped = Layer.effectDiscard(
    Effect.andThen(
      checkFolders(config),
      Effect.addFinalizer(() => (started.running ? Effect.logInfo("stopped") : Effect.void))
    )
  )
  const metricsOn = metricsEnabled(runtime.metrics)
  const tracing = runtime.tracing
  const measure = metricsOn ? RequestMetrics.middleware(routes) : undefined
  const trace = Option.isSome(tracing) ? Tracing.requestSpans(routes) : undefined
  const middleware = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => {
    const measured = measure === undefined ? app : measure(app)
    return trace === undefined ? measured : trace(measured)
  }
  const routesLive = Layer.mergeAll(
    ApiLive.pipe(Layer.provide(EdgeReferencesLive), Layer.provide(Layer.succeed(RouteTable.Routes, routes))),
    // The developer portal at /docs: static pages rendered once at start, no database queries.
    PortalHttp.layerFromDocs(runtime.docsDir),
    runtime.metrics.onMainPort ? MetricsEndpoint.MainPortRoute : Layer.empty
  )
  // No request log line or listen line of the platform's: StartupLog and the Envelope write ours.
  return HttpRouter.serve(routesLive, {
    disableLogger: true,
    disableListenLog: true,
    ...(measure !== undefined || trace !== undefined ? { middleware } : {})
  }).pipe(
    // The platform's own request span is off: it records the URL and every header, where keys and personal
    // data can be; ours (Tracing.requestSpans) records the route template, status and request id only.
    Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen, () => true)),
    Layer.provideMerge(metricsOn ? MetricsLive(runtime) : MetricsEndpoint.ScrapeOff),
    Layer.provide(drainDeadline),
    Layer.provideMerge(StartupLog(config, runtime, started)),
    Layer.provideMerge(
      NodeHttpServer.layer(() => server, {
        port: config.port,
        host: config.host,
        gracefulShutdownTimeout: Duration.seconds(config.shutdownTimeoutSeconds)
      }).pipe(Layer.provide(EdgeLimitsLive(server)))
    ),
    // The database is provided outside the HTTP server, so that it closes last.
    Layer.provide(servicesWith(config, runtime, overrides)),
    Layer.provide(stopped),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, config.logLevel)),
    // Without an OTLP endpoint nothing exports spans, so the ones adapters and @effect/sql open per
    // statement are made no-ops: tracing off costs nothing on the hot path.
    Layer.provide(
      Option.isSome(tracing) ? Tracing.TracingLive(tracing.value) : Layer.succeed(References.TracerEnabled, false)
    )
  )
}
