import { type HttpApp, HttpServerRequest, HttpTraceContext } from "@effect/platform"
import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler
} from "@opentelemetry/sdk-trace-base"
import { Cause, Effect, Option, Redacted } from "effect"
import type { TracingSettings } from "../ServerConfig.js"
import type { RouteTemplates } from "./RouteTemplates.js"

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

/** The OpenTelemetry SDK as Effect's tracer, exporting batches of spans over OTLP/HTTP. */
export const TracingLive = (settings: TracingSettings) =>
  NodeSdk.layer(() => ({
    resource: { serviceName: settings.serviceName, serviceVersion: "0.1.0" },
    spanProcessor: new BatchSpanProcessor(
      new OTLPTraceExporter({ url: settings.url, headers: Redacted.value(settings.headers) }),
      {
        scheduledDelayMillis: settings.scheduleDelayMillis
      }
    ),
    tracerConfig: { sampler: samplerOf(settings) }
  }))

/**
 * One server span per request, named by its route template, continuing the caller's trace when it sends
 * `traceparent`. Its attributes are the method, the template and the status (the Envelope adds
 * `request_id`): never the URL, its query, headers or the body, which may carry keys and personal data.
 */
export const requestSpans =
  (routes: RouteTemplates) =>
  (app: HttpApp.Default): HttpApp.Default =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const route = routes.match(request.method, request.url.split("?")[0] ?? "")
      return Effect.useSpan(
        `${request.method} ${route}`,
        {
          kind: "server",
          captureStackTrace: false,
          parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
          attributes: { "http.request.method": request.method, "http.route": route }
        },
        (span) =>
          Effect.onExit(Effect.withParentSpan(app, span), (exit) =>
            Effect.sync(() =>
              span.attribute(
                "http.response.status_code",
                exit._tag === "Success" ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500
              )
            )
          )
      )
    })
