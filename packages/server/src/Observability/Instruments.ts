import { Context, Metric } from "effect"

/**
 * The server's metrics, recorded with Effect's own Metric API and read by the OpenTelemetry SDK (see
 * `MetricsEndpoint.ts`). docs/operations.md says what each one means and how to alert on it. Labels are
 * bounded sets (route templates, never paths; kinds and states, never ids) so that a series count stays small.
 */

const seconds = (boundaries: ReadonlyArray<number>) => Metric.boundariesFromIterable(boundaries)

/** Latencies of requests, transactions and images: 1 ms to 30 s. */
const latencyBoundaries = seconds([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])

export const httpRequests = Metric.counter("http_server_requests", {
  description: "HTTP requests answered, by route template, method and status",
  incremental: true
})

export const httpRequestDuration = Metric.histogram("http_server_request_duration_seconds", {
  boundaries: latencyBoundaries,
  description: "Time from the request's arrival to its answer, by route template, method and status"
})

export const rateLimitRejections = Metric.counter("rate_limit_rejections", {
  description:
    "Requests refused with 429, by limit: key (120/min), company (600/min), auth_failures (invalid keys per client, or of all clients)",
  incremental: true
})

export const idempotencyReplays = Metric.counter("idempotency_replays", {
  description: "Writes answered with the stored response of an earlier request with the same Idempotency-Key",
  incremental: true
})

export const idempotencyConflicts = Metric.counter("idempotency_conflicts", {
  description: "Writes refused with 409 over their Idempotency-Key, by reason: mismatch (another body) or in_progress",
  incremental: true
})

export const jobs = Metric.gauge("jobs", {
  description: "Jobs waiting or under way, by kind and state (queued, running, paused); read at each scrape"
})

export const oldestQueuedJobAge = Metric.gauge("jobs_oldest_queued_age_seconds", {
  description: "Age of the oldest queued job, by kind (0 when none is queued); read at each scrape"
})

export const poolConnections = Metric.gauge("db_pool_connections", {
  description: "PostgreSQL pool connections open, by state (idle, in_use); read at each scrape"
})

export const poolMaxConnections = Metric.gauge("db_pool_max_connections", {
  description: "The most connections the PostgreSQL pool opens (DATABASE_POOL_SIZE)"
})

export const poolWaiting = Metric.gauge("db_pool_waiting_requests", {
  description:
    "Queries and transactions waiting for a PostgreSQL pool connection, all being in use; read at each scrape"
})

export const jobDuration = Metric.histogram("job_duration_seconds", {
  boundaries: seconds([0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 900, 3600]),
  description: "Time a worker spent on one run of a job, by kind and outcome (finished, lost_lease, failed)"
})

export const importRecords = Metric.counter("import_records", {
  description: "Import records applied by the workers, by outcome (applied, failed); rate() gives records per second",
  incremental: true
})

export const imageProcessingDuration = Metric.histogram("image_processing_duration_seconds", {
  boundaries: latencyBoundaries,
  description: "Time to decode, resize and encode one image, by result (ok, rejected)"
})

export const transactionDuration = Metric.histogram("db_transaction_duration_seconds", {
  boundaries: latencyBoundaries,
  description: "Time of one database transaction, by outcome (commit, rollback)"
})

/**
 * Records `value` on `metric` under `labels` (no fiber work: the middleware and decorators call it inline).
 * The empty context holds the default metric registry, the one the OpenTelemetry producer reads.
 */
export const record = <In>(metric: Metric.Metric<In, unknown>, value: In, labels: Readonly<Record<string, string>>) =>
  Metric.withAttributes(metric, labels).updateUnsafe(value, Context.empty())
