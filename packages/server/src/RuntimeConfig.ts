import type { PeopleAdmin } from "@catalog-sync/core"
import { Config, Duration, Effect, type Option } from "effect"
import { allReported, invalid, onOff, seconds, text, wholeNumber } from "./ConfigReading.js"
import { MetricsConfig, type MetricsSettings, TracingConfig, type TracingSettings } from "./TelemetryConfig.js"

/** Job workers, leases and time-outs, and the portal's guides: what the running server does, beyond where it runs. */
export interface RuntimeSettings {
  /** `JOB_WORKERS` (default 1; 0 runs none, for an instance that only serves requests). */
  readonly jobWorkers: number
  /** `JOB_LEASE_SECONDS` (default 30): a worker's claim on a job. */
  readonly jobLease: Duration.Duration
  /** `JOB_POLL_MILLISECONDS` (default 250): how often an idle worker looks for queued jobs. */
  readonly jobPollMillis: number
  /** `IDEMPOTENCY_LEASE_SECONDS` (default 60): how long a running request holds its Idempotency-Key. */
  readonly idempotencyLease: Duration.Duration
  /** `MEDIA_PROCESSING_TIMEOUT_SECONDS` (default 120): past it, a media job fails with `processing_timeout`. */
  readonly mediaProcessingTimeout: Duration.Duration
  /** `JOB_RETENTION_DAYS` (default 7): how long finished import jobs, their records and reports are kept. */
  readonly jobRetention: Duration.Duration
  /** `BENCHMARK_RATE_LIMIT_MULTIPLIER` (default 1): benchmarks only, multiplies the rate limits. */
  readonly rateLimitMultiplier: number
  /** `DOCS_DIR` (default `docs`): the guides the portal at /docs shows. */
  readonly docsDir: string
  /** `PANEL_ENABLED` (default true): whether the company panel is served at /panel. */
  readonly panelEnabled: boolean
  /**
   * `PANEL_SESSION_IDLE_MINUTES` (default 30) and `PANEL_SESSION_MAX_HOURS` (default 12): a panel session
   * ends after this long without a request, and this long after its sign-in whatever happens.
   */
  readonly panelSessions: PeopleAdmin.SessionLimits
  /** `METRICS_*`: where `GET /metrics` (Prometheus text) is served; off by default. */
  readonly metrics: MetricsSettings
  /** The standard `OTEL_*` variables: where traces go; none (off) unless an OTLP endpoint is set. */
  readonly tracing: Option.Option<TracingSettings>
}

/** The most hours a panel session may last: a year. */
const maxSessionHours = 8760

/** The panel's session limits; the idle limit cannot outlast the session itself. */
const PanelSessionConfig: Config.Config<PeopleAdmin.SessionLimits> = allReported({
  idleMinutes: wholeNumber("PANEL_SESSION_IDLE_MINUTES", 30, 1, maxSessionHours * 60),
  maxHours: wholeNumber("PANEL_SESSION_MAX_HOURS", 12, 1, maxSessionHours)
}).pipe(
  Config.mapEffect((limits) =>
    limits.idleMinutes <= limits.maxHours * 60
      ? Effect.succeed(limits)
      : Effect.fail(
          invalid(
            "PANEL_SESSION_IDLE_MINUTES",
            String(limits.idleMinutes),
            `must be at most PANEL_SESSION_MAX_HOURS in minutes (${limits.maxHours} h = ${limits.maxHours * 60})`
          )
        )
  )
)

/** The runtime settings from the environment. */
export const RuntimeConfig: Config.Config<RuntimeSettings> = allReported({
  jobWorkers: wholeNumber("JOB_WORKERS", 1, 0),
  jobLease: seconds("JOB_LEASE_SECONDS", 30, 1),
  jobPollMillis: wholeNumber("JOB_POLL_MILLISECONDS", 250, 10),
  idempotencyLease: seconds("IDEMPOTENCY_LEASE_SECONDS", 60, 1),
  mediaProcessingTimeout: seconds("MEDIA_PROCESSING_TIMEOUT_SECONDS", 120, 1),
  jobRetention: Config.map(wholeNumber("JOB_RETENTION_DAYS", 7, 1), Duration.days),
  rateLimitMultiplier: wholeNumber("BENCHMARK_RATE_LIMIT_MULTIPLIER", 1, 1),
  docsDir: text("DOCS_DIR", "docs"),
  panelEnabled: onOff("PANEL_ENABLED", true),
  panelSessions: PanelSessionConfig,
  metrics: MetricsConfig,
  tracing: TracingConfig
})
