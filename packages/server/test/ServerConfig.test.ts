import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Redacted, Result } from "effect"
import { describeConfigError, describePostgres, EdgeConfig, metricsEnabled, ServerConfig } from "../src/ServerConfig.js"
import { describeSetup } from "../src/Startup.js"

/** The effect reading these variables only, as the server reads the environment. */
const given = <A, E>(effect: Effect.Effect<A, E>, env: Record<string, string>) =>
  Effect.provideService(effect, ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))

const readFrom = <A, E>(effect: Effect.Effect<A, E>, env: Record<string, string>) => Effect.result(given(effect, env))

const load = (env: Record<string, string>) => readFrom(ServerConfig, env)

describe("media storage settings", () => {
  it.effect("the filesystem by default; the S3 variables are read only with MEDIA_STORAGE=s3", () =>
    Effect.gen(function* () {
      expect(Result.getOrThrow(yield* load({})).mediaStorage).toEqual({ kind: "fs" })
      // A stray S3 variable does not stop a filesystem deployment.
      expect(Result.getOrThrow(yield* load({ MEDIA_STORAGE: "fs", S3_ENDPOINT: "not a url" })).mediaStorage).toEqual({
        kind: "fs"
      })
      expect(
        Result.getOrThrow(yield* load({ MEDIA_STORAGE: "s3", S3_BUCKET: "media", S3_PREFIX: "a" })).mediaStorage
      ).toMatchObject({
        kind: "s3",
        s3: { bucket: "media", prefix: "a/" }
      })
    })
  )

  it.effect(
    "MEDIA_STORAGE=s3 without a bucket, or an unknown storage, stops the start with a message naming the variable",
    () =>
      Effect.gen(function* () {
        const missing = yield* Effect.flip(given(ServerConfig, { MEDIA_STORAGE: "s3" }))
        expect(describeConfigError(missing)).toBe(
          "MEDIA_STORAGE=s3 needs S3_BUCKET, the name of the bucket that holds the media"
        )
        const unknown = yield* Effect.flip(given(ServerConfig, { MEDIA_STORAGE: "gcs" }))
        expect(describeConfigError(unknown)).toContain("MEDIA_STORAGE")
      })
  )
})

describe("server settings", () => {
  it.effect("defaults make a fresh machine work; every setting is read here, parsed and typed", () =>
    Effect.gen(function* () {
      const config = Result.getOrThrow(yield* load({}))
      expect(config).toMatchObject({
        port: 8080,
        host: "0.0.0.0",
        dataDir: "./data",
        shutdownTimeoutSeconds: 20,
        logLevel: "Info"
      })
      expect(config.postgres).toBeUndefined()
      expect(config.runtime).toMatchObject({
        jobWorkers: 1,
        jobPollMillis: 250,
        rateLimitMultiplier: 1,
        docsDir: "docs",
        panelEnabled: true,
        panelSessions: { idleMinutes: 30, maxHours: 12 }
      })
      expect(Duration.toMillis(config.runtime!.jobLease)).toBe(30_000)
      expect(Duration.toDays(config.runtime!.jobRetention)).toBe(7)
      const tuned = Result.getOrThrow(
        yield* load({
          JOB_WORKERS: "0",
          JOB_RETENTION_DAYS: "30",
          JOB_LEASE_SECONDS: "2.5",
          IDEMPOTENCY_LEASE_SECONDS: "5",
          LOG_LEVEL: "debug",
          DATABASE_URL: " "
        })
      )
      expect(tuned.runtime?.jobWorkers).toBe(0)
      expect(Duration.toMillis(tuned.runtime!.jobLease)).toBe(2_500)
      expect(Duration.toMillis(tuned.runtime!.idempotencyLease)).toBe(5_000)
      expect(Duration.toDays(tuned.runtime!.jobRetention)).toBe(30)
      const keepsNothing = yield* Effect.flip(given(ServerConfig, { JOB_RETENTION_DAYS: "0" }))
      expect(describeConfigError(keepsNothing)).toBe("JOB_RETENTION_DAYS=0 must be a whole number from 1 up")
      expect(tuned.logLevel).toBe("Debug")
      // A blank DATABASE_URL (an empty line in an env file) keeps SQLite.
      expect(tuned.postgres).toBeUndefined()
    })
  )

  it.effect("panel sessions: whole positive minutes idle and hours in all, the idle limit within the whole", () =>
    Effect.gen(function* () {
      const sessions = (env: Record<string, string>) =>
        Effect.map(load(env), (loaded) => Result.map(loaded, (config) => config.runtime!.panelSessions))
      expect(
        Result.getOrThrow(yield* sessions({ PANEL_SESSION_IDLE_MINUTES: "15", PANEL_SESSION_MAX_HOURS: "8" }))
      ).toEqual({ idleMinutes: 15, maxHours: 8 })
      // The idle limit may be the whole session, not more.
      expect(
        Result.getOrThrow(yield* sessions({ PANEL_SESSION_IDLE_MINUTES: "60", PANEL_SESSION_MAX_HOURS: "1" }))
      ).toEqual({ idleMinutes: 60, maxHours: 1 })
      const message = (env: Record<string, string>) =>
        Effect.map(Effect.flip(given(ServerConfig, env)), describeConfigError)
      expect(yield* message({ PANEL_SESSION_IDLE_MINUTES: "61", PANEL_SESSION_MAX_HOURS: "1" })).toBe(
        "PANEL_SESSION_IDLE_MINUTES=61 must be at most PANEL_SESSION_MAX_HOURS in minutes (1 h = 60)"
      )
      expect(yield* message({ PANEL_SESSION_IDLE_MINUTES: "0" })).toBe(
        "PANEL_SESSION_IDLE_MINUTES=0 must be a whole number from 1 to 525600"
      )
      expect(yield* message({ PANEL_SESSION_IDLE_MINUTES: "7.5" })).toBe(
        "PANEL_SESSION_IDLE_MINUTES=7.5 must be a whole number from 1 to 525600"
      )
      expect(yield* message({ PANEL_SESSION_MAX_HOURS: "-3" })).toBe(
        "PANEL_SESSION_MAX_HOURS=-3 must be a whole number from 1 to 8760"
      )
      const both = yield* message({ PANEL_SESSION_IDLE_MINUTES: "x", PANEL_SESSION_MAX_HOURS: "0" })
      expect(both).toContain("PANEL_SESSION_IDLE_MINUTES=x must be a whole number")
      expect(both).toContain("PANEL_SESSION_MAX_HOURS=0 must be a whole number")
    })
  )

  it.effect("metrics are off unless a port of their own or the API's port is chosen", () =>
    Effect.gen(function* () {
      const off = Result.getOrThrow(yield* load({})).runtime!.metrics
      expect(metricsEnabled(off)).toBe(false)
      // Loopback by default: the endpoint needs no key, whatever interface the API listens on.
      const loopback = Result.getOrThrow(yield* load({ METRICS_PORT: "9464", HOST: "0.0.0.0" })).runtime!.metrics
      expect(loopback.host).toBe("127.0.0.1")
      const ownPort = Result.getOrThrow(yield* load({ METRICS_PORT: "9464", METRICS_HOST: "10.0.0.5" })).runtime!
        .metrics
      expect(ownPort).toEqual({
        port: Option.some(9464),
        host: "10.0.0.5",
        onMainPort: false,
        serviceName: "catalog-sync"
      })
      expect(metricsEnabled(ownPort)).toBe(true)
      const main = Result.getOrThrow(yield* load({ METRICS_ON_MAIN_PORT: "true" })).runtime!.metrics
      expect(metricsEnabled(main)).toBe(true)
      const message = (env: Record<string, string>) =>
        Effect.map(Effect.flip(given(ServerConfig, env)), describeConfigError)
      expect(yield* message({ METRICS_PORT: "70000" })).toBe(
        "METRICS_PORT=70000 must be a port number from 0 to 65535 (0: any free port)"
      )
      expect(yield* message({ METRICS_ON_MAIN_PORT: "yes" })).toBe("METRICS_ON_MAIN_PORT=yes must be true or false")
    })
  )

  it.effect("tracing is on with an OTLP endpoint (the standard OTEL_* variables), else off", () =>
    Effect.gen(function* () {
      const tracing = (env: Record<string, string>) =>
        Effect.map(load(env), (config) => Result.getOrThrow(config).runtime!.tracing)
      expect(yield* tracing({})).toEqual(Option.none())
      const on = Option.getOrThrow(
        yield* tracing({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
          OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0ken"
        })
      )
      expect(on).toMatchObject({
        protocol: "http/protobuf",
        url: "http://collector:4318/v1/traces",
        serviceName: "catalog-sync",
        sampler: "parentbased_always_on",
        ratio: 1
      })
      expect(Redacted.value(on.headers)).toEqual({ authorization: "Bearer t0ken" })
      expect(String(on.headers)).not.toContain("t0ken")
      const own = Option.getOrThrow(
        yield* tracing({
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://tempo:4318/otlp/v1/traces",
          OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
          OTEL_TRACES_SAMPLER_ARG: "0.01",
          OTEL_SERVICE_NAME: "catalog"
        })
      )
      expect(own).toMatchObject({
        url: "https://tempo:4318/otlp/v1/traces",
        sampler: "parentbased_traceidratio",
        ratio: 0.01,
        serviceName: "catalog"
      })
      expect(
        yield* tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })
      ).toEqual(Option.none())
      expect(
        yield* tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })
      ).toEqual(Option.none())
      const message = (env: Record<string, string>) =>
        Effect.map(Effect.flip(given(ServerConfig, env)), describeConfigError)
      // The traces-only variable wins over the general one; grpc is refused with the way out.
      const protocolOf = (env: Record<string, string>) =>
        Effect.map(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", ...env }), (settings) =>
          Option.map(settings, (s) => s.protocol)
        )
      expect(yield* protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual(Option.some("http/json"))
      expect(
        yield* protocolOf({
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf"
        })
      ).toEqual(Option.some("http/protobuf"))
      expect(yield* message({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toContain(
        "OTEL_EXPORTER_OTLP_PROTOCOL=grpc must be http/protobuf or http/json: the server sends OTLP over HTTP only, not grpc"
      )
      expect(yield* message({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" })).toContain(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc must be http/protobuf or http/json"
      )
      expect(yield* message({ OTEL_TRACES_SAMPLER_ARG: "2" })).toBe(
        "OTEL_TRACES_SAMPLER_ARG=2 must be a number from 0 to 1"
      )
      expect(yield* message({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toBe(
        "OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318 must be an http:// or https:// URL"
      )
    })
  )

  it.effect("the start-up line says where metrics and traces go, without credentials", () =>
    Effect.gen(function* () {
      const config = Result.getOrThrow(
        yield* load({
          METRICS_PORT: "9464",
          METRICS_ON_MAIN_PORT: "true",
          OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:s3cret@collector:4318",
          OTEL_TRACES_SAMPLER: "traceidratio",
          OTEL_TRACES_SAMPLER_ARG: "0.25"
        })
      )
      const setup = describeSetup(config, config.runtime!)
      expect(setup).toMatchObject({
        metrics: "GET /metrics on port 9464 and GET /metrics on the API's port",
        tracing: "otlp http/protobuf https://collector:4318/v1/traces (traceidratio 0.25)"
      })
      expect(JSON.stringify(setup)).not.toContain("s3cret")
    })
  )

  it.effect("each error names its variable and what it takes; several errors are all reported", () =>
    Effect.gen(function* () {
      const message = (env: Record<string, string>) =>
        Effect.map(Effect.flip(given(ServerConfig, env)), describeConfigError)
      expect(yield* message({ PORT: "abc" })).toBe("PORT=abc must be a whole number from 1 to 65535")
      expect(yield* message({ JOB_WORKERS: "-1" })).toBe("JOB_WORKERS=-1 must be a whole number from 0 up")
      expect(yield* message({ JOB_POLL_MILLISECONDS: "5" })).toBe(
        "JOB_POLL_MILLISECONDS=5 must be a whole number from 10 up"
      )
      expect(yield* message({ DATABASE_URL: "postgres://db.internal:5432" })).toBe(
        "DATABASE_URL must name a host and a database: postgres://user:password@host:5432/database"
      )
      expect(yield* message({ DATABASE_URL: "mysql://u:secret@db/shop" })).not.toContain("secret")
      const both = yield* message({ PORT: "0", LOG_LEVEL: "verbose" })
      expect(both).toContain("PORT=0 must be a whole number from 1 to 65535")
      expect(both).toContain("LOG_LEVEL=verbose must be one of debug, info, warning, warn, error, none")
    })
  )

  it.effect("a PostgreSQL URL is described for logs without its password", () =>
    Effect.gen(function* () {
      const config = Result.getOrThrow(
        yield* load({ DATABASE_URL: "postgresql://app:s3cr%40t@db.internal:6543/catalog" })
      )
      expect(describePostgres(config.postgres!)).toBe("db.internal:6543/catalog as app")
      expect(describePostgres(config.postgres!)).not.toContain("s3cr")
    })
  )
})

describe("edge settings", () => {
  const edge = (env: Record<string, string>) => readFrom(EdgeConfig, env)

  it.effect(
    "defaults: X-Forwarded-* from trusted proxies, the failed-key budgets, a body rate, a send time-out and a per-address cap",
    () =>
      Effect.gen(function* () {
        const defaults = Result.getOrThrow(yield* edge({}))
        expect(defaults).toMatchObject({
          proxyHeaders: "x-forwarded",
          bodyMinBytesPerSecond: 1000,
          sendTimeoutSeconds: 30,
          maxConnectionsPerAddress: 100,
          authFailuresPerMinute: 30,
          authFailuresGlobalPerMinute: 300
        })
        expect(Result.getOrThrow(yield* edge({ TRUSTED_PROXY_HEADERS: "Forwarded" })).proxyHeaders).toBe("forwarded")
        expect(Result.getOrThrow(yield* edge({ HTTP_BODY_MIN_BYTES_PER_SECOND: "0" })).bodyMinBytesPerSecond).toBe(0)
        const message = (env: Record<string, string>) =>
          Effect.map(Effect.flip(given(EdgeConfig, env)), describeConfigError)
        expect(yield* message({ TRUSTED_PROXY_HEADERS: "x-real-ip" })).toBe(
          "TRUSTED_PROXY_HEADERS=x-real-ip must be x-forwarded or forwarded: the forwarding headers the trusted proxies set"
        )
        expect(yield* message({ AUTH_FAILURES_GLOBAL_PER_MINUTE: "0" })).toContain(
          "AUTH_FAILURES_GLOBAL_PER_MINUTE must be a whole number >= 1"
        )
        expect(yield* message({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: "0" })).toContain(
          "HTTP_MAX_CONNECTIONS_PER_ADDRESS must be a whole number >= 1"
        )
        expect(yield* message({ HTTP_SEND_TIMEOUT_SECONDS: "0" })).toContain(
          "HTTP_SEND_TIMEOUT_SECONDS must be a number of seconds > 0"
        )
      })
  )
})
