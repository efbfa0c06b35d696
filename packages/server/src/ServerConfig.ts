import { parseTrustedProxies } from "@catalog-sync/adapter-http"
import type { S3Settings } from "@catalog-sync/adapter-storage-s3"
import { Config, ConfigError, Effect, Either, LogLevel, Option, Redacted } from "effect"
import type { BlockList } from "node:net"

const logLevels = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
} as const

/** The settings of both database modes (see `ServerConfig`). */
const settings = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
  databaseFile: Config.option(Config.string("SQLITE_FILE")),
  /** Processed images, one folder per company storage_slug (default `<DATA_DIR>/media`). */
  mediaDir: Config.option(Config.string("MEDIA_DIR")),
  /** Requests still running at shutdown get this long to finish. */
  shutdownTimeoutSeconds: Config.integer("SHUTDOWN_TIMEOUT_SECONDS").pipe(Config.withDefault(20)),
  /** debug, info (one line per request), warning, error. */
  logLevel: Config.literal("debug", "info", "warning", "warn", "error", "none")("LOG_LEVEL").pipe(
    Config.withDefault("info" as const),
    Config.map((name) => logLevels[name])
  )
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

/**
 * `DATABASE_URL` selects PostgreSQL, for several instances on one database; without it the server keeps
 * its embedded SQLite file.
 */
const postgres: Config.Config<Option.Option<PostgresSettings>> = Config.all({
  url: Config.option(Config.redacted("DATABASE_URL")),
  poolSize: Config.integer("DATABASE_POOL_SIZE").pipe(
    Config.withDefault(10),
    Config.validate({ message: "DATABASE_POOL_SIZE must be a whole number >= 1", validation: (n) => n >= 1 })
  ),
  statementTimeoutMillis: Config.integer("DATABASE_STATEMENT_TIMEOUT_MS").pipe(
    Config.withDefault(30_000),
    Config.validate({ message: "DATABASE_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds >= 0", validation: (n) => n >= 0 })
  )
}).pipe(
  Config.map(({ url, ...pool }) =>
    // An empty DATABASE_URL (a blank line in an env file) means "not set", not "connect to nothing".
    Option.map(Option.filter(url, (value) => Redacted.value(value) !== ""), (value) => ({ url: value, ...pool }))
  )
)

/** Where processed images and staged uploads live. */
export type MediaStorageSettings =
  /** Folders under MEDIA_DIR and DATA_DIR/staging: one instance, or a folder shared by all. */
  | { readonly kind: "fs" }
  /** One bucket shared by every instance (`S3_*`). */
  | { readonly kind: "s3"; readonly s3: S3Settings.S3Settings }

/** `MEDIA_STORAGE=fs` (default) or `s3`. The S3 variables are read, and validated, only when s3 is chosen. */
const mediaStorage: Effect.Effect<MediaStorageSettings, ConfigError.ConfigError> = Effect.flatMap(
  Config.literal("fs", "s3")("MEDIA_STORAGE").pipe(Config.withDefault("fs" as const)),
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
  /** An idle kept-alive connection is closed after this (`HTTP_KEEP_ALIVE_TIMEOUT_SECONDS`, default 5). */
  readonly keepAliveTimeoutSeconds: number
  /** Connections open at once; further ones are closed at once (`HTTP_MAX_CONNECTIONS`, default 1000). */
  readonly maxConnections: number
  /** Peers whose Forwarded / X-Forwarded-* headers are believed (`TRUSTED_PROXIES`, default none). */
  readonly trustedProxies: BlockList | undefined
  /** Invalid keys one client address may present per minute before it gets 429 (`AUTH_FAILURES_PER_MINUTE`, default 30). */
  readonly authFailuresPerMinute: number
}

const positiveSeconds = (name: string, defaultSeconds: number) =>
  Config.number(name).pipe(
    Config.withDefault(defaultSeconds),
    Config.validate({ message: `${name} must be a number of seconds > 0`, validation: (n) => n > 0 })
  )

/** `HTTP_*`, `TRUSTED_PROXIES` and `AUTH_FAILURES_PER_MINUTE` (see EdgeSettings and the README). */
export const EdgeConfig: Config.Config<EdgeSettings> = Config.all({
  headersTimeoutSeconds: positiveSeconds("HTTP_HEADERS_TIMEOUT_SECONDS", 10),
  requestTimeoutSeconds: positiveSeconds("HTTP_REQUEST_TIMEOUT_SECONDS", 120),
  keepAliveTimeoutSeconds: positiveSeconds("HTTP_KEEP_ALIVE_TIMEOUT_SECONDS", 5),
  maxConnections: Config.integer("HTTP_MAX_CONNECTIONS").pipe(
    Config.withDefault(1000),
    Config.validate({ message: "HTTP_MAX_CONNECTIONS must be a whole number >= 1", validation: (n) => n >= 1 })
  ),
  trustedProxies: Config.string("TRUSTED_PROXIES").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) =>
      Either.try({
        try: () => parseTrustedProxies(text),
        catch: (error) => ConfigError.InvalidData(["TRUSTED_PROXIES"], `TRUSTED_PROXIES: ${(error as Error).message}`)
      })
    )
  ),
  authFailuresPerMinute: Config.integer("AUTH_FAILURES_PER_MINUTE").pipe(
    Config.withDefault(30),
    Config.validate({ message: "AUTH_FAILURES_PER_MINUTE must be a whole number >= 1", validation: (n) => n >= 1 })
  )
}).pipe(
  Config.validate({
    message: "HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS",
    validation: (edge) => edge.headersTimeoutSeconds <= edge.requestTimeoutSeconds
  })
)

/** The server settings; `postgres` is absent when the server runs on SQLite. */
export type ServerConfig = Omit<Config.Config.Success<typeof settings>, "mediaDir"> & {
  readonly postgres?: PostgresSettings | undefined
  /** Absent: `<dataDir>/media`. */
  readonly mediaDir?: Option.Option<string> | undefined
  /** Absent: the filesystem. */
  readonly mediaStorage?: MediaStorageSettings | undefined
}

/**
 * Server settings from the environment. The defaults make `npm start` work on a fresh machine: port
 * 8080, SQLite database and media folder under ./data.
 */
export const ServerConfig: Effect.Effect<ServerConfig, ConfigError.ConfigError> = Effect.gen(function* () {
  const [base, pg] = yield* Config.all([settings, postgres])
  return { ...base, ...(Option.isSome(pg) ? { postgres: pg.value } : {}), mediaStorage: yield* mediaStorage }
})
