import * as OtelMetrics from "@effect/opentelemetry/OtelMetrics"
import type * as Resource from "@effect/opentelemetry/Resource"
import { PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { MetricReader } from "@opentelemetry/sdk-metrics"
import { PgPoolUse } from "@catalog-sync/adapter-pg"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import type { SqlClient } from "effect/sql"
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
export class MetricsScrape extends Context.Service<MetricsScrape, Effect.Effect<string>>()(
  "@catalog-sync/server/MetricsScrape"
) {}

/** The separate metrics port, once listening (tests read its port). */
export class MetricsPort extends Context.Service<MetricsPort, { readonly port: number }>()(
  "@catalog-sync/server/MetricsPort"
) {}

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
}).pipe(Effect.catchCause((cause) => Effect.logWarning("metrics: the job queue could not be read", cause)))

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
  Layer.unwrap(
    Effect.gen(function* () {
      const reader = new ScrapeReader()
      const serializer = new PrometheusSerializer()
      const scrape = Effect.andThen(
        // The pool first: read before the queue's query waits for a connection of a saturated pool.
        Effect.andThen(refreshPoolGauges, refreshQueueGauges),
        Effect.promise(() => reader.collect()).pipe(
          Effect.map(({ resourceMetrics }) => serializer.serialize(resourceMetrics))
        )
      )
      const context = yield* Effect.context<SqlClient.SqlClient>()
      return Layer.merge(
        OtelMetrics.layer(() => reader),
        Layer.succeed(MetricsScrape, Effect.provideContext(scrape, context))
      )
    })
  )

/**
 * The scrape of a server without metrics: nothing is recorded, so there is nothing to read (no route asks
 * for it then; it stands in so that the server's layers have the same shape with metrics on or off).
 */
export const ScrapeOff: Layer.Layer<MetricsScrape> = Layer.succeed(MetricsScrape, Effect.succeed(""))

/** `GET /metrics` on the API's router (`METRICS_ON_MAIN_PORT=true`): unauthenticated, as the setting says. */
export const MainPortRoute = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const scrape = yield* MetricsScrape
    yield* router.add(
      "GET",
      "/metrics",
      Effect.map(scrape, (text) =>
        HttpServerResponse.text(text, { contentType, headers: { "cache-control": "no-store" } })
      )
    )
  })
)

/**
 * A port of its own that answers `GET /metrics` and nothing else (`METRICS_PORT`), with the API port's
 * time-outs and connection caps (`HTTP_*`): it needs no key, so slow or idle clients must not hold it.
 */
export const SeparatePort = (port: number, host: string): Layer.Layer<MetricsPort, Error, MetricsScrape> =>
  Layer.effect(
    MetricsPort,
    Effect.gen(function* () {
      const scrape = yield* MetricsScrape
      const edge = yield* Effect.orDie(EdgeConfig)
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
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
        Effect.callback<void, Error>((resume) => {
          server.once("error", (error) => resume(Effect.fail(new Error(`METRICS_PORT=${port}: ${error.message}`))))
          server.listen(port, host, () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      yield* Effect.logInfo("metrics served").pipe(
        Effect.annotateLogs({ url: `http://${host}:${(server.address() as AddressInfo).port}/metrics` })
      )
      return { port: (server.address() as AddressInfo).port }
    })
  )
