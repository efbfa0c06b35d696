import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { HttpServerRequest, type HttpServerResponse, HttpTraceContext } from "effect/http"
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler
} from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option, Redacted, References, Tracer } from "effect"
import type { RouteTable } from "@catalog-sync/adapter-http"
import type { TracingSettings } from "../ServerConfig.js"
import { redacting } from "./RedactedSpans.js"
import { statusOf } from "./RequestMetrics.js"

const samplerOf = (settings: TracingSettings): Sampler => {
  switch (settings.sampler) {
    case "always_on":
      return new AlwaysOnSampler()
    case "always_off":
      return new AlwaysOffSampler()
    case "traceidratio":
      return new TraceIdRatioBasedSampler(settings.ratio)
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() })
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.ratio) })
  }
}

const exporterOf = (settings: TracingSettings) => {
  const options = { url: settings.url, headers: Redacted.value(settings.headers) }
  return settings.protocol === "http/json" ? new JsonExporter(options) : new ProtobufExporter(options)
}

/**
 * The OpenTelemetry SDK as Effect's tracer, exporting batches of spans over OTLP/HTTP (protobuf or JSON),
 * its spans recording failures by tag and code only (`RedactedSpans`).
 */
export const TracingLive = (settings: TracingSettings) =>
  Layer.unwrap(Effect.map(Effect.tracer, (tracer) => Layer.succeed(Tracer.Tracer, redacting(tracer)))).pipe(
    Layer.provide(
      NodeSdk.layer(() => ({
        resource: { serviceName: settings.serviceName, serviceVersion: "0.1.0" },
        spanProcessor: new BatchSpanProcessor(exporterOf(settings), {
          scheduledDelayMillis: settings.scheduleDelayMillis
        }),
        tracerConfig: { sampler: samplerOf(settings) }
      }))
    )
  )

/**
 * Sampling is decided once, on the request span (by the sampler, or by the caller's `traceparent` flags
 * under a parent-based sampler). An unsampled request runs with the tracer off and without its span as
 * parent: the use case, authentication, every @effect/sql statement and adapter span are no-ops instead of
 * OTel spans never exported, and no fiber step enters the span's OTel context (the bridge does that on
 * every step under a current span). So an unsampled request costs about what tracing off costs, and its
 * jobs keep no traceparent (there is no sampled span to keep, see JobTrace.currentTraceParent).
 */
const inside = <A, E, R>(span: Tracer.Span, app: Effect.Effect<A, E, R>) =>
  span.sampled ? Effect.withParentSpan(app, span) : Effect.provideService(app, References.TracerEnabled, false)

/**
 * The caller's span from its `traceparent` (or B3) headers, with its sampled flag where the OTel bridge
 * reads it: @effect/opentelemetry takes an Effect external span without its own trace-flags entry as
 * sampled, so a parent-based sampler would keep a request whose caller sent flags 00.
 */
const callerSpan = (request: HttpServerRequest.HttpServerRequest) =>
  Option.map(HttpTraceContext.fromHeaders(request.headers), (parent) =>
    OtelTracer.makeExternalSpan({ traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.sampled ? 1 : 0 })
  )

/**
 * One server span per request, named by its route template (from the route table), continuing the caller's trace when it sends
 * `traceparent`. Its attributes are the method, the template and the status (the Envelope adds
 * `request_id`): never the URL, its query, headers or the body, which may carry keys and personal data.
 */
export const requestSpans =
  (routes: RouteTable.RouteTable) =>
  <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const route = routes.templateOf(request.method, request.url)
      return Effect.useSpan(
        `${request.method} ${route}`,
        {
          kind: "server",
          parent: Option.getOrUndefined(callerSpan(request)),
          attributes: { "http.request.method": request.method, "http.route": route }
        },
        (span) =>
          Effect.onExit(inside(span, app), (exit) =>
            Effect.sync(() => span.attribute("http.response.status_code", statusOf(exit)))
          )
      )
    })
