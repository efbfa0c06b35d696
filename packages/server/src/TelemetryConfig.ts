import { Config, Option, Redacted } from "effect"
import { allReported, onOff, setting, text, wholeNumber } from "./ConfigReading.js"

/** Which traces are kept, as `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` say (the OpenTelemetry names). */
export type SamplerName =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio"

/** How spans are encoded on OTLP/HTTP: protobuf (the OpenTelemetry default) or JSON. */
export type OtlpProtocol = "http/protobuf" | "http/json"

/** Spans exported over OTLP/HTTP to a collector: Jaeger, Grafana Tempo, an OpenTelemetry Collector. */
export interface TracingSettings {
  /** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL` (default `http/protobuf`). */
  readonly protocol: OtlpProtocol
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  readonly url: string
  /** `OTEL_EXPORTER_OTLP_TRACES_HEADERS` or `OTEL_EXPORTER_OTLP_HEADERS` (`name=value,...`), redacted: they often hold a token. */
  readonly headers: Redacted.Redacted<Record<string, string>>
  /** `OTEL_SERVICE_NAME` (default `catalog-sync`). */
  readonly serviceName: string
  /** `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`). */
  readonly sampler: SamplerName
  /** `OTEL_TRACES_SAMPLER_ARG` for the ratio samplers (default 1). */
  readonly ratio: number
  /** `OTEL_BSP_SCHEDULE_DELAY` (default 5000): how long ended spans wait to be sent in one batch. */
  readonly scheduleDelayMillis: number
}

/** `OTEL_SERVICE_NAME`: the service the traces and the metrics' `target_info` name, read once for both. */
const serviceName = text("OTEL_SERVICE_NAME", "catalog-sync")

const samplers: ReadonlyArray<SamplerName> = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
]

const otlpHeaders = (name: string) =>
  setting<Record<string, string> | null>(name, null, "must be name=value pairs separated by commas", (raw) => {
    const headers: Record<string, string> = {}
    for (const pair of raw.split(",")) {
      const at = pair.indexOf("=")
      if (at < 1) return undefined
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
    }
    return headers
  })

const endpointUrl = (name: string) =>
  setting<string | null>(name, null, "must be an http:// or https:// URL", (raw) =>
    /^https?:\/\/[^/]/i.test(raw) ? raw.replace(/\/+$/, "") : undefined
  )

/** Only OTLP over HTTP is spoken: `grpc` is refused at start rather than silently sent as HTTP. */
const otlpProtocol = (name: string, documented?: OtlpProtocol) =>
  setting<OtlpProtocol | null>(
    name,
    null,
    "must be http/protobuf or http/json: the server sends OTLP over HTTP only, not grpc (use the collector's OTLP/HTTP port, usually 4318)",
    (raw) => (raw === "http/protobuf" || raw === "http/json" ? raw : undefined),
    documented
  )

/** Tracing is on when an OTLP endpoint is set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. */
export const TracingConfig: Config.Config<Option.Option<TracingSettings>> = allReported({
  disabled: onOff("OTEL_SDK_DISABLED", false),
  exporter: setting("OTEL_TRACES_EXPORTER", "otlp", "must be otlp or none", (raw) =>
    raw === "otlp" || raw === "none" ? raw : undefined
  ),
  // Unset, the traces' protocol is the general one, and that one the OpenTelemetry default.
  protocol: otlpProtocol("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
  tracesProtocol: otlpProtocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
  endpoint: endpointUrl("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: endpointUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  headers: otlpHeaders("OTEL_EXPORTER_OTLP_HEADERS"),
  tracesHeaders: otlpHeaders("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
  serviceName,
  sampler: setting<SamplerName>(
    "OTEL_TRACES_SAMPLER",
    "parentbased_always_on",
    `must be one of ${samplers.join(", ")}`,
    (raw) => (samplers.includes(raw as SamplerName) ? (raw as SamplerName) : undefined)
  ),
  ratio: setting("OTEL_TRACES_SAMPLER_ARG", 1, "must be a number from 0 to 1", (raw) => {
    const n = Number(raw)
    return /^\d*\.?\d+$/.test(raw) && n >= 0 && n <= 1 ? n : undefined
  }),
  scheduleDelayMillis: wholeNumber("OTEL_BSP_SCHEDULE_DELAY", 5000, 1)
}).pipe(
  Config.map((otel): Option.Option<TracingSettings> => {
    const url = otel.tracesEndpoint ?? (otel.endpoint === null ? null : `${otel.endpoint}/v1/traces`)
    if (url === null || otel.disabled || otel.exporter === "none") return Option.none()
    return Option.some({
      protocol: otel.tracesProtocol ?? otel.protocol ?? "http/protobuf",
      url,
      headers: Redacted.make(otel.tracesHeaders ?? otel.headers ?? {}),
      serviceName: otel.serviceName,
      sampler: otel.sampler,
      ratio: otel.ratio,
      scheduleDelayMillis: otel.scheduleDelayMillis
    })
  })
)

/**
 * Where the Prometheus endpoint is served. It needs no key, so by default it is on no port at all; an
 * operator opens it on a port of its own (`METRICS_PORT`, reachable only from the scraper's network), or
 * on the API's port when `METRICS_ON_MAIN_PORT=true` says that anyone who reaches the API may read it.
 */
export interface MetricsSettings {
  /** `METRICS_PORT`: a port of its own for `GET /metrics` (0 picks a free one); none by default. */
  readonly port: Option.Option<number>
  /** `METRICS_HOST` (default `127.0.0.1`): the address that port listens on. */
  readonly host: string
  /** `METRICS_ON_MAIN_PORT` (default false): also serve `GET /metrics` on the API's port, without a key. */
  readonly onMainPort: boolean
  /** `OTEL_SERVICE_NAME` (default `catalog-sync`): the service `target_info` names. */
  readonly serviceName: string
}

/** Whether the server records and serves metrics at all. */
export const metricsEnabled = (settings: MetricsSettings) => Option.isSome(settings.port) || settings.onMainPort

export const MetricsConfig: Config.Config<MetricsSettings> = allReported({
  port: setting<Option.Option<number>>(
    "METRICS_PORT",
    Option.none(),
    "must be a port number from 0 to 65535 (0: any free port)",
    (raw) => (/^\d+$/.test(raw) && Number(raw) <= 65535 ? Option.some(Number(raw)) : undefined)
  ),
  host: text("METRICS_HOST", "127.0.0.1"),
  onMainPort: onOff("METRICS_ON_MAIN_PORT", false),
  serviceName
})
