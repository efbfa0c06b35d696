import { parseTrustedProxies, type ProxyHeaders, proxyHeaderFamilies } from "@catalog-sync/adapter-http"
import type { S3Settings } from "@catalog-sync/adapter-storage-s3"
import { Config, ConfigError, Duration, Effect, Either, LogLevel, Option, Redacted } from "effect"
import type { BlockList } from "node:net"

/**
 * Every setting of the server, read from the environment in this one module. Each error names its
 * variable and what it takes (`PORT=abc must be a port number from 1 to 65535`), since an operator sees
 * only that line when the server refuses to start.
 */

/**
 * Every environment variable this module reads, with its default as `docs/configuration.md` writes it
 * (`undefined`: unset, the feature off or the value derived from another setting). Filled as the settings
 * below are declared; `test/docs-configuration.test.ts` holds the page to it. The S3 adapter reads the
 * `S3_*` variables itself.
 */
const declared = new Map<string, string | undefined>()
export const variables: ReadonlyMap<string, string | undefined> = declared

/** Declares `name` with its documented default and gives it back. */
const variable = (name: string, fallback: string | undefined): string => {
  declared.set(name, fallback)
  return name
}

/** A default as the docs write it: absent values (`null`, `Option.none()`) are "unset". */
const shown = (fallback: unknown): string | undefined =>
  typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean"
    ? String(fallback)
    : undefined

const invalid = (name: string, raw: string | undefined, what: string) =>
  ConfigError.InvalidData([name], `${name}${raw === undefined ? "" : `=${raw}`} ${what}`)

/**
 * A variable parsed by `parse` (undefined: not valid, `what` says what it takes). Unset or empty means
 * the default: an empty line in an env file is not a value.
 */
const setting = <A>(
  name: string,
  fallback: A,
  what: string,
  parse: (raw: string) => A | undefined,
  documented: string | undefined = shown(fallback)
): Config.Config<A> =>
  Config.option(Config.string(variable(name, documented))).pipe(
    Config.mapOrFail((value) => {
      const raw = Option.getOrElse(value, () => "").trim()
      if (raw === "") return Either.right(fallback)
      const parsed = parse(raw)
      return parsed === undefined ? Either.left(invalid(name, raw, what)) : Either.right(parsed)
    })
  )

const wholeNumber = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  setting(
    name,
    fallback,
    `must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}`,
    (raw) => {
      if (!/^\d+$/.test(raw)) return undefined
      const n = Number(raw)
      return n >= min && n <= max ? n : undefined
    }
  )

/** Seconds, fractions allowed. */
const seconds = (name: string, fallback: number, min: number) =>
  setting(
    name,
    Duration.seconds(fallback),
    `must be a number of seconds >= ${min}`,
    (raw) => {
      if (!/^\d+(\.\d+)?$/.test(raw)) return undefined
      const n = Number(raw)
      return n >= min ? Duration.millis(Math.round(n * 1000)) : undefined
    },
    String(fallback)
  )

const text = (name: string, fallback: string) => setting(name, fallback, "", (raw) => raw)
const optionalText = (name: string) =>
  setting<Option.Option<string>>(name, Option.none(), "", (raw) => Option.some(raw))
const onOff = (name: string, fallback: boolean) =>
  setting(name, fallback, "must be true or false", (raw) =>
    raw === "true" ? true : raw === "false" ? false : undefined
  )

/** `LOG_LEVEL` values and what each lets through. */
export const logLevels = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
} as const

const logLevel = setting(
  "LOG_LEVEL",
  LogLevel.Info,
  `must be one of ${Object.keys(logLevels).join(", ")}`,
  (raw) => (Object.hasOwn(logLevels, raw) ? logLevels[raw as keyof typeof logLevels] : undefined),
  "info"
)

/** The settings of both database modes (see `ServerConfig`). */
const settings = Config.all({
  port: wholeNumber("PORT", 8080, 1, 65535),
  host: text("HOST", "0.0.0.0"),
  dataDir: text("DATA_DIR", "./data"),
  databaseFile: optionalText("SQLITE_FILE"),
  /** Processed images, one folder per company storage_slug (default `<DATA_DIR>/media`). */
  mediaDir: optionalText("MEDIA_DIR"),
  /** Requests still running at shutdown get this long to finish. */
  shutdownTimeoutSeconds: wholeNumber("SHUTDOWN_TIMEOUT_SECONDS", 20, 0),
  /** debug, info (one line per request), warning, error, none. */
  logLevel
})

/** Where the PostgreSQL database is and how to use it; present when `DATABASE_URL` is set. */
export interface PostgresSettings {
  /** `postgres://user:password@host:port/database`, redacted so that it never reaches logs. */
  readonly url: Redacted.Redacted<string>
  /** Connections per instance (`DATABASE_POOL_SIZE`, default 10). */
  readonly poolSize: number
  /** A statement running longer is cancelled (`DATABASE_STATEMENT_TIMEOUT_MS`, default 30000; 0 = none). */
  readonly statementTimeoutMillis: number
}

const databaseUrlForm = "postgres://user:password@host:5432/database"

/** A PostgreSQL URL, or why not; the value itself is never repeated, since it holds the password. */
const postgresUrl = (raw: string): Either.Either<string, string> => {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase()
  if (scheme === undefined)
    return Either.left(`must be a PostgreSQL URL such as ${databaseUrlForm} (unset it to use SQLite)`)
  if (scheme !== "postgres" && scheme !== "postgresql") {
    return Either.left(
      `is a ${scheme}:// URL; only PostgreSQL is supported (${databaseUrlForm}), or unset it to use SQLite`
    )
  }
  try {
    const url = new URL(raw)
    if (url.hostname === "" || url.pathname.length < 2)
      return Either.left(`must name a host and a database: ${databaseUrlForm}`)
    return Either.right(raw)
  } catch {
    return Either.left(
      `is not a valid URL; expected ${databaseUrlForm} (special characters in the password must be percent-encoded)`
    )
  }
}

/**
 * `DATABASE_URL` selects PostgreSQL, for several instances on one database; without it the server keeps
 * its embedded SQLite file.
 */
const postgres: Config.Config<Option.Option<PostgresSettings>> = Config.all({
  url: Config.option(Config.redacted(variable("DATABASE_URL", undefined))).pipe(
    Config.mapOrFail((value): Either.Either<Option.Option<Redacted.Redacted<string>>, ConfigError.ConfigError> => {
      // An empty DATABASE_URL (a blank line in an env file) means "not set", not "connect to nothing".
      const url = Option.filter(value, (v) => Redacted.value(v).trim() !== "")
      if (Option.isNone(url)) return Either.right(url)
      return Either.match(postgresUrl(Redacted.value(url.value).trim()), {
        onLeft: (what) => Either.left(invalid("DATABASE_URL", undefined, what)),
        onRight: () => Either.right(url)
      })
    })
  ),
  poolSize: wholeNumber("DATABASE_POOL_SIZE", 10, 1),
  statementTimeoutMillis: wholeNumber("DATABASE_STATEMENT_TIMEOUT_MS", 30_000, 0)
}).pipe(Config.map(({ url, ...pool }) => Option.map(url, (value) => ({ url: value, ...pool }))))

/** Where a PostgreSQL URL points, without its password: `host:port/database` as user. For logs and errors. */
export const describePostgres = (settings: PostgresSettings): string => {
  try {
    const url = new URL(Redacted.value(settings.url))
    return `${url.hostname}:${url.port || "5432"}${url.pathname}${url.username === "" ? "" : ` as ${decodeURIComponent(url.username)}`}`
  } catch {
    return "(DATABASE_URL)"
  }
}

/** Where processed images and staged uploads live. */
export type MediaStorageSettings =
  /** Folders under MEDIA_DIR and DATA_DIR/staging: one instance, or a folder shared by all. */
  | { readonly kind: "fs" }
  /** One bucket shared by every instance (`S3_*`). */
  | { readonly kind: "s3"; readonly s3: S3Settings.S3Settings }

/** `MEDIA_STORAGE=fs` (default) or `s3`. The S3 variables are read, and validated, only when s3 is chosen. */
const mediaStorage: Effect.Effect<MediaStorageSettings, ConfigError.ConfigError> = Effect.flatMap(
  setting("MEDIA_STORAGE", "fs" as const, "must be fs or s3", (raw) =>
    raw === "fs" || raw === "s3" ? raw : undefined
  ),
  (kind): Effect.Effect<MediaStorageSettings, ConfigError.ConfigError> =>
    kind === "s3"
      ? // Loaded only when chosen: the S3 SDK costs a filesystem deployment (and every CLI command) ~0.3 s and ~20 MB.
        Effect.promise(() => import("@catalog-sync/adapter-storage-s3")).pipe(
          Effect.flatMap((adapter) => adapter.S3Settings.S3Config),
          Effect.map((s3) => ({ kind, s3 }))
        )
      : Effect.succeed({ kind })
)

/** The HTTP edge: the Node server's limits against slow and idle clients, proxies, key guessing. */
export interface EdgeSettings {
  /** A client must have sent the request line and headers within this (`HTTP_HEADERS_TIMEOUT_SECONDS`, default 10). */
  readonly headersTimeoutSeconds: number
  /** ... and the whole request, body included (`HTTP_REQUEST_TIMEOUT_SECONDS`, default 120: 10 MB at 1 Mbit/s takes 84 s). */
  readonly requestTimeoutSeconds: number
  /**
   * A body must arrive at this many bytes a second on average once the headers time-out has passed since
   * it began (`HTTP_BODY_MIN_BYTES_PER_SECOND`, default 1000; 0: no minimum).
   */
  readonly bodyMinBytesPerSecond: number
  /** An answer the client reads nothing of for this long is cut off (`HTTP_SEND_TIMEOUT_SECONDS`, default 30). */
  readonly sendTimeoutSeconds: number
  /** An idle kept-alive connection is closed after this (`HTTP_KEEP_ALIVE_TIMEOUT_SECONDS`, default 5). */
  readonly keepAliveTimeoutSeconds: number
  /** Connections open at once; further ones are closed at once (`HTTP_MAX_CONNECTIONS`, default 1000). */
  readonly maxConnections: number
  /**
   * Connections open at once from one client address (an IPv6 /64), trusted proxies aside
   * (`HTTP_MAX_CONNECTIONS_PER_ADDRESS`, default 100).
   */
  readonly maxConnectionsPerAddress: number
  /** Peers whose forwarding headers are believed (`TRUSTED_PROXIES`, default none). */
  readonly trustedProxies: BlockList | undefined
  /** Which forwarding headers they set (`TRUSTED_PROXY_HEADERS`: `x-forwarded`, the default, or `forwarded`). */
  readonly proxyHeaders: ProxyHeaders
  /** Invalid keys one client address may present per minute before it gets 429 (`AUTH_FAILURES_PER_MINUTE`, default 30). */
  readonly authFailuresPerMinute: number
  /** Invalid keys of all clients together per minute before each one's next is blocked (`AUTH_FAILURES_GLOBAL_PER_MINUTE`, default 300). */
  readonly authFailuresGlobalPerMinute: number
}

const positiveSeconds = (name: string, defaultSeconds: number) =>
  Config.number(variable(name, String(defaultSeconds))).pipe(
    Config.withDefault(defaultSeconds),
    Config.validate({ message: `${name} must be a number of seconds > 0`, validation: (n) => n > 0 })
  )

const atLeast = (name: string, fallback: number, min: number) =>
  Config.integer(variable(name, String(fallback))).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a whole number >= ${min}`, validation: (n) => n >= min })
  )

/** `HTTP_*`, `TRUSTED_PROXIES`, `TRUSTED_PROXY_HEADERS` and `AUTH_FAILURES_*` (see EdgeSettings and docs/configuration.md). */
export const EdgeConfig: Config.Config<EdgeSettings> = Config.all({
  headersTimeoutSeconds: positiveSeconds("HTTP_HEADERS_TIMEOUT_SECONDS", 10),
  requestTimeoutSeconds: positiveSeconds("HTTP_REQUEST_TIMEOUT_SECONDS", 120),
  bodyMinBytesPerSecond: atLeast("HTTP_BODY_MIN_BYTES_PER_SECOND", 1000, 0),
  sendTimeoutSeconds: positiveSeconds("HTTP_SEND_TIMEOUT_SECONDS", 30),
  keepAliveTimeoutSeconds: positiveSeconds("HTTP_KEEP_ALIVE_TIMEOUT_SECONDS", 5),
  maxConnections: atLeast("HTTP_MAX_CONNECTIONS", 1000, 1),
  maxConnectionsPerAddress: atLeast("HTTP_MAX_CONNECTIONS_PER_ADDRESS", 100, 1),
  trustedProxies: Config.string(variable("TRUSTED_PROXIES", "")).pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) =>
      Either.try({
        try: () => parseTrustedProxies(text),
        catch: (error) => ConfigError.InvalidData(["TRUSTED_PROXIES"], `TRUSTED_PROXIES: ${(error as Error).message}`)
      })
    )
  ),
  proxyHeaders: setting<ProxyHeaders>(
    "TRUSTED_PROXY_HEADERS",
    "x-forwarded",
    `must be ${proxyHeaderFamilies.join(" or ")}: the forwarding headers the trusted proxies set`,
    (raw) => proxyHeaderFamilies.find((family) => family === raw.toLowerCase())
  ),
  authFailuresPerMinute: atLeast("AUTH_FAILURES_PER_MINUTE", 30, 1),
  authFailuresGlobalPerMinute: atLeast("AUTH_FAILURES_GLOBAL_PER_MINUTE", 300, 1)
}).pipe(
  Config.validate({
    message: "HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS",
    validation: (edge) => edge.headersTimeoutSeconds <= edge.requestTimeoutSeconds
  })
)

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
  /** `METRICS_*`: where `GET /metrics` (Prometheus text) is served; off by default. */
  readonly metrics: MetricsSettings
  /** The standard `OTEL_*` variables: where traces go; none (off) unless an OTLP endpoint is set. */
  readonly tracing: Option.Option<TracingSettings>
}

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
const TracingConfig: Config.Config<Option.Option<TracingSettings>> = Config.all({
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
  serviceName: text("OTEL_SERVICE_NAME", "catalog-sync"),
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
}

/** Whether the server records and serves metrics at all. */
export const metricsEnabled = (settings: MetricsSettings) => Option.isSome(settings.port) || settings.onMainPort

const MetricsConfig: Config.Config<MetricsSettings> = Config.all({
  port: setting<Option.Option<number>>(
    "METRICS_PORT",
    Option.none(),
    "must be a port number from 0 to 65535 (0: any free port)",
    (raw) => (/^\d+$/.test(raw) && Number(raw) <= 65535 ? Option.some(Number(raw)) : undefined)
  ),
  host: text("METRICS_HOST", "127.0.0.1"),
  onMainPort: onOff("METRICS_ON_MAIN_PORT", false)
})

/** The runtime settings from the environment. */
export const RuntimeConfig: Config.Config<RuntimeSettings> = Config.all({
  jobWorkers: wholeNumber("JOB_WORKERS", 1, 0),
  jobLease: seconds("JOB_LEASE_SECONDS", 30, 1),
  jobPollMillis: wholeNumber("JOB_POLL_MILLISECONDS", 250, 10),
  idempotencyLease: seconds("IDEMPOTENCY_LEASE_SECONDS", 60, 1),
  mediaProcessingTimeout: seconds("MEDIA_PROCESSING_TIMEOUT_SECONDS", 120, 1),
  jobRetention: Config.map(wholeNumber("JOB_RETENTION_DAYS", 7, 1), Duration.days),
  rateLimitMultiplier: wholeNumber("BENCHMARK_RATE_LIMIT_MULTIPLIER", 1, 1),
  docsDir: text("DOCS_DIR", "docs"),
  metrics: MetricsConfig,
  tracing: TracingConfig
})

/**
 * The server settings; `postgres` is absent when the server runs on SQLite. Embedders and tests may leave
 * out `runtime`: the server then reads it from the environment (`RuntimeConfig`) as it starts.
 */
export type ServerConfig = Omit<Config.Config.Success<typeof settings>, "mediaDir"> & {
  readonly postgres?: PostgresSettings | undefined
  /** Absent: `<dataDir>/media`. */
  readonly mediaDir?: Option.Option<string> | undefined
  /** Absent: the filesystem. */
  readonly mediaStorage?: MediaStorageSettings | undefined
  readonly runtime?: RuntimeSettings | undefined
}

/**
 * Server settings from the environment. The defaults make `npm start` work on a fresh machine: port
 * 8080, SQLite database and media folder under ./data.
 */
export const ServerConfig: Effect.Effect<ServerConfig, ConfigError.ConfigError> = Effect.gen(function* () {
  const [base, pg, runtime] = yield* Config.all([settings, postgres, RuntimeConfig])
  return { ...base, ...(Option.isSome(pg) ? { postgres: pg.value } : {}), mediaStorage: yield* mediaStorage, runtime }
})

/** One line per problem, each naming its variable (the messages above already do; others get `NAME: `). */
export const describeConfigError = (error: ConfigError.ConfigError): string =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left, right) => `${left}; ${right}`,
    orCase: (_, left, right) => `${left}; ${right}`,
    invalidDataCase: (_, path, message) => withVariable(path, message),
    missingDataCase: (_, path, message) => withVariable(path, message),
    sourceUnavailableCase: (_, path, message) => withVariable(path, message),
    unsupportedCase: (_, path, message) => withVariable(path, message)
  })

const withVariable = (path: ReadonlyArray<string>, message: string) => {
  const name = path.join("_")
  return name === "" || message.includes(name) ? message : `${name}: ${message}`
}
