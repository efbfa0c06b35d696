import { NodeHttpServer } from "@effect/platform-node"
import * as Resource from "@effect/opentelemetry/Resource"
import { Duration, Effect, Layer, Option, References } from "effect"
import { HttpMiddleware, HttpRouter, type HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { EdgeLimitsLive } from "./Edge.js"
import { continueOnlyBodiesWithinLimits } from "./ExpectContinue.js"
import * as MetricsEndpoint from "./Observability/MetricsEndpoint.js"
import * as RequestMetrics from "./Observability/RequestMetrics.js"
import * as Tracing from "./Observability/Tracing.js"
import { mountsOf, routeTableOf, RoutesLive } from "./Routes.js"
import { metricsEnabled, type RuntimeSettings, type ServerConfig } from "./ServerConfig.js"
import { runtimeOf, type ServerOverrides, servicesWith } from "./Services.js"
import { checkFolders, StartupLog } from "./Startup.js"
import { answerUnparsableRequests } from "./UnparsableRequests.js"

// The server's parts, where its importers (the CLI, the tests, embedders through index.ts) find them.
export { type MediaPorts, MediaStorageLive } from "./MediaPorts.js"
export { PersistenceLive } from "./Persistence.js"
export { type ServerOverrides, ServicesLive } from "./Services.js"
export { databaseFile, mediaDir } from "./Startup.js"

/**
 * Metrics (off unless METRICS_PORT or METRICS_ON_MAIN_PORT is set): Effect's metrics go through the
 * OpenTelemetry SDK to Prometheus text at GET /metrics, on a port of its own and/or the API's port (that
 * route is one of the mounts, see `mountsOf`).
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

/**
 * The HTTP server: the API on a Node server. On shutdown the server stops accepting connections,
 * lets running requests finish for up to `shutdownTimeoutSeconds`, then closes what is left; the
 * database is provided outside the server so that it closes last. The folders it writes are checked
 * first, and the start, the beginning and the end of shutdown are logged.
 */
export const ServerLive = (config: ServerConfig, overrides: ServerOverrides = {}) =>
  Layer.unwrap(Effect.map(runtimeOf(config), (runtime) => serverWith(config, runtime, overrides)))

const serverWith = (config: ServerConfig, runtime: RuntimeSettings, overrides: ServerOverrides) => {
  const mounts = mountsOf(runtime)
  const routes = routeTableOf(mounts)
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
  // No request log line or listen line of the platform's: StartupLog and the Envelope write ours.
  return HttpRouter.serve(RoutesLive(routes, mounts), {
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
