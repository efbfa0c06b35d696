import { HttpApiBuilder, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ApiLive, Readiness } from "@catalog-sync/adapter-http"
import { layer as sqlitePorts } from "@catalog-sync/adapter-sqlite"
import { CatalogService, ChangeFeed, Idempotency, IdempotencyStore, Ids, InMemoryRateLimiter, InventoryService } from "@catalog-sync/core"
import { SqlClient } from "@effect/sql"
import { Clock, Config, Effect, Layer, Logger, Option, Schedule } from "effect"
import { RateLimiter } from "@catalog-sync/core"
import { createServer } from "node:http"
import { join } from "node:path"
import type { ServerConfig } from "./ServerConfig.js"

export const databaseFile = (config: ServerConfig) => Option.getOrElse(config.databaseFile, () => join(config.dataDir, "catalog-sync.db"))

/** The database the server runs on: SQLite under the data folder, migrated while the layer builds. */
export const PersistenceLive = (config: ServerConfig) => sqlitePorts({ filename: databaseFile(config) })

const ReadinessLive = Layer.effect(
  Readiness,
  Effect.map(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`SELECT 1`))
)

/** Forgets completed idempotency records past their retention, once an hour. */
const IdempotencyPurge = Layer.scopedDiscard(
  Effect.gen(function* () {
    const store = yield* IdempotencyStore.IdempotencyStore
    const purge = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const removed = yield* store.purge(now - Idempotency.retentionMillis)
      if (removed > 0) yield* Effect.logDebug("purged idempotency records").pipe(Effect.annotateLogs("removed", removed))
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("idempotency purge failed", cause)))
    yield* Effect.forkScoped(Effect.repeat(purge, Schedule.spaced("1 hour")))
  })
)

/**
 * The in-memory rate limiter. For benchmarks only, BENCHMARK_RATE_LIMIT_MULTIPLIER (a whole number,
 * default 1 = the documented limits) multiplies the per-key and per-company limits, so that one company
 * can be driven past 600 requests a minute (bench scenario 4). Never set it in production.
 */
const RateLimiterLive = Layer.unwrapEffect(
  Config.integer("BENCHMARK_RATE_LIMIT_MULTIPLIER").pipe(
    Config.withDefault(1),
    Config.validate({ message: "must be a whole number >= 1", validation: (n) => n >= 1 }),
    Effect.map((factor) =>
      factor === 1
        ? InMemoryRateLimiter.layer
        : Layer.effect(
            RateLimiter.RateLimiter,
            Effect.map(RateLimiter.RateLimiter, (inner) =>
              RateLimiter.RateLimiter.of({ consume: (bucket, limit, window, now) => inner.consume(bucket, limit * factor, window, now) })
            )
          ).pipe(Layer.provide(InMemoryRateLimiter.layer))
    )
  )
)

/** Core services over the persistence ports. */
export const ServicesLive = Layer.mergeAll(
  CatalogService.CatalogService.Default,
  ChangeFeed.ChangeFeed.Default,
  InventoryService.InventoryService.Default,
  RateLimiterLive,
  ReadinessLive,
  IdempotencyPurge
).pipe(
  Layer.provideMerge(Ids.IdsLive)
)

/**
 * The HTTP server: the API on a Node server. On shutdown the server stops accepting connections,
 * lets running requests finish for up to `shutdownTimeoutSeconds`, then closes what is left; the
 * database is provided outside the server so that it closes last.
 */
export const ServerLive = (config: ServerConfig) => {
  const server = createServer()
  const drainDeadline = Layer.scopedDiscard(
    Effect.addFinalizer(() =>
      Effect.sync(() => setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutSeconds * 1000).unref())
    )
  )
  // Per-request tracing spans cost a third of the throughput and nothing reads them by default.
  return HttpApiBuilder.serve().pipe(
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(ApiLive),
    Layer.provide(drainDeadline),
    HttpServer.withLogAddress,
    Layer.provideMerge(NodeHttpServer.layer(() => server, { port: config.port, host: config.host })),
    Layer.provide(ServicesLive),
    Layer.provide(PersistenceLive(config)),
    Layer.provide(Logger.minimumLogLevel(config.logLevel))
  )
}
