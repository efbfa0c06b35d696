import { CatalogSync } from "@catalog-sync/adapter-http"
import { SqlRateLimiter } from "@catalog-sync/adapter-sql"
import { InMemoryRateLimiter, RateLimiter } from "@catalog-sync/core"
import { type Config, Effect, Layer } from "effect"
import type { SqlClient, SqlConnection } from "effect/sql"
import { type MediaPorts, MediaPortsLive } from "./MediaPorts.js"
import * as InstrumentedPorts from "./Observability/InstrumentedPorts.js"
import { observed, observedMedia, observedPersistence } from "./Observability/Observed.js"
import * as TracedPorts from "./Observability/TracedPorts.js"
import { PersistenceLive, ReadinessLive, resumeCutOffWork } from "./Persistence.js"
import { RuntimeConfig, type RuntimeSettings, type ServerConfig } from "./ServerConfig.js"

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
              usage: (bucket, limit, window, now) => inner.usage(bucket, limit * factor, window, now),
              consumeInOrder: (buckets, window, now) =>
                inner.consumeInOrder(
                  buckets.map(({ bucket, limit }) => ({ bucket, limit: limit * factor })),
                  window,
                  now
                )
            })
          )
        ).pipe(Layer.provide(base))
  return observed(runtime, limiter, InstrumentedPorts.rateLimiter, undefined)
}

/** The runtime settings of `config`, or from the environment when the caller left them out. */
export const runtimeOf = (config: ServerConfig): Effect.Effect<RuntimeSettings, Config.ConfigError> =>
  config.runtime === undefined ? RuntimeConfig : Effect.succeed(config.runtime)

/**
 * Every service the API needs, with their persistence, media ports and the job workers, as the
 * configuration and the runtime settings ask: `CatalogSync.layer`, the composition embedders use, given
 * the server's adapters, its rate limiter and readiness probe, and its metrics and spans when they are on.
 */
export const ServicesLive = (config: ServerConfig, overrides: ServerOverrides = {}) =>
  Layer.unwrap(Effect.map(runtimeOf(config), (runtime) => servicesWith(config, runtime, overrides)))

/** `ServicesLive` with the runtime settings already read (the server reads them once for all its layers). */
export const servicesWith = (config: ServerConfig, runtime: RuntimeSettings, overrides: ServerOverrides) => {
  const persistence = observedPersistence(runtime, PersistenceLive(config, overrides.sql))
  const media = observedMedia(
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
    sessionLimits: runtime.panelSessions,
    jobKinds: (layer) => observed(runtime, layer, InstrumentedPorts.jobKinds, TracedPorts.jobKinds)
  })
}
