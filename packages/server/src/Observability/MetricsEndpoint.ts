import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Metrics, type Resource } from "@effect/opentelemetry"
import { PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { MetricReader } from "@opentelemetry/sdk-metrics"
import type { SqlClient } from "@effect/sql"
import { PgPoolUse } from "@catalog-sync/adapter-pg"
import { Clock, Context, Effect, Layer, Option, Runtime } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { applyEdgeSettings } from "../Edge.js"
import { EdgeConfig } from "../ServerConfig.js"
import * as Instruments from "./Instruments.js"
import { jobKinds, pendingStates, queueGroups } from "./JobQueueStats.js"

/** Metrics are read when scraped; nothing is pushed, so the reader has nothing to flush. */
class ScrapeReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

/** Collects the metrics in Prometheus text (exposition format 0.0.4). */
export class MetricsScrape extends Context.Tag("@catalog-sync/server/MetricsScrape")<
  MetricsScrape,
  Effect.Effect<string>
>() {}

/** The separate metrics port, once listening (tests read its port). */
export class MetricsPort extends Context.Tag("@catalog-sync/server/MetricsPort")<
  MetricsPort,
  { readonly port: number }
>() {}

export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** The queue gauges are read from the database at each scrape: a gauge that nobody reads costs nothing. */
const refreshQueueGauges = Effect.gen(function* () {
  const groups = yield* queueGroups
  const now = yield* Clock.currentTimeMillis
  for (const kind of jobKinds) {
    for (const state of pendingStates) {
      const group = groups.find((g) => g.kind === kind && g.state === state)
      Instruments.record(Instruments.jobs, group?.count ?? 0, { kind, state })
    }
    const queued = groups.find((g) => g.kind === kind && g.state === "queued")?.oldestQueuedAt ?? null
    Instruments.record(Instruments.oldestQueuedJobAge, queued === null ? 0 : Math.max(0, (now - queued) / 1000), {
      kind
    })
  }
}).pipe(Effect.catchAllCause((cause) => Effect.logWarning("metrics: the job queue could not be read", cause)))

/**
 * The PostgreSQL pool's use, from the driver's counters (no query). SQLite has no pool (a writer taken in
 * turn and a reader), so these series are absent.
 */
const refreshPoolGauges = Effect.map(Effect.serviceOption(PgPoolUse), (use) =>
  Option.map(use, (read) => {
    const { total, idle, waiting, max } = read()
    Instruments.record(Instruments.poolConnections, idle, { state: "idle" })
    Instruments.record(Instruments.poolConnections, total - idle, { state: "in_use" })
    Instruments.record(Instruments.poolWaiting, waiting, {})
    Instruments.record(Instruments.poolMaxConnections, max, {})
  })
)

/**
 * Effect's metrics exported through the OpenTelemetry SDK (`@effect/opentelemetry` registers them as a
 * metric producer) and read by a pull reader at each scrape, then written as Prometheus text.
 */
export const MetricsScrapeLive: Layer.Layer<MetricsScrape, never, SqlClient.SqlClient | Resource.Resource> =
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const reader = new ScrapeReader()
      const serializer = new PrometheusSerializer()
      const scrape = Effect.zipRight(
        // The pool first: read before the queue's query waits for a connection of a saturated pool.
        Effect.zipRight(refreshPoolGauges, refreshQueueGauges),
        Effect.promise(() => reader.collect()).pipe(
          Effect.map(({ resourceMetrics }) => serializer.serialize(resourceMetrics))
        )
      )
      const context = yield* Effect.context<SqlClient.SqlClient>()
      return Layer.merge(
        Metrics.layer(() => reader),
        Layer.succeed(MetricsScrape, Effect.provide(scrape, context))
      )
    })
  )

/** `GET /metrics` on the API's router (`METRICS_ON_MAIN_PORT=true`): unauthenticated, as the setting says. */
export const MainPortRoute = HttpApiBuilder.Router.use((router) =>
  Effect.flatMap(MetricsScrape, (scrape) =>
    router.get(
      "/metrics",
      Effect.map(scrape, (text) =>
        HttpServerResponse.text(text, { contentType, headers: { "cache-control": "no-store" } })
      )
    )
  )
)

/**
 * A port of its own that answers `GET /metrics` and nothing else (`METRICS_PORT`), with the API port's
 * time-outs and connection caps (`HTTP_*`): it needs no key, so slow or idle clients must not hold it.
 */
export const SeparatePort = (port: number, host: string): Layer.Layer<MetricsPort, Error, MetricsScrape> =>
  Layer.scoped(
    MetricsPort,
    Effect.gen(function* () {
      const scrape = yield* MetricsScrape
      const edge = yield* Effect.orDie(EdgeConfig)
      const run = Runtime.runPromise(yield* Effect.runtime<never>())
      const server: Server = createServer((request, response) => {
        if (
          (request.url ?? "").split("?")[0] !== "/metrics" ||
          (request.method !== "GET" && request.method !== "HEAD")
        ) {
          response.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served on this port\n")
          return
        }
        run(scrape).then(
          (text) =>
            response
              .writeHead(200, { "content-type": contentType, "cache-control": "no-store" })
              .end(request.method === "HEAD" ? undefined : text),
          () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics could not be collected\n")
        )
      })
      applyEdgeSettings(server, edge)
      yield* Effect.acquireRelease(
        Effect.async<void, Error>((resume) => {
          server.once("error", (error) => resume(Effect.fail(new Error(`METRICS_PORT=${port}: ${error.message}`))))
          server.listen(port, host, () => resume(Effect.void))
        }),
        () =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      yield* Effect.logInfo("metrics served").pipe(
        Effect.annotateLogs({ url: `http://${host}:${(server.address() as AddressInfo).port}/metrics` })
      )
      return { port: (server.address() as AddressInfo).port }
    })
  )
