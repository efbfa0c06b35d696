import { type Config, Effect, type LogLevel, Option } from "effect"
import { allReported, optionalText, setting, text, wholeNumber } from "./ConfigReading.js"
import { PostgresConfig, type PostgresSettings } from "./DatabaseConfig.js"
import { MediaStorageConfig, type MediaStorageSettings } from "./MediaStorageConfig.js"
import { RuntimeConfig, type RuntimeSettings } from "./RuntimeConfig.js"

/**
 * Every setting of the server, read from the environment. This module gathers them: where the server runs
 * (port, host, data folder, log level) is declared here, the other concerns each in a module of their own
 * (DatabaseConfig, MediaStorageConfig, EdgeConfig, RuntimeConfig, TelemetryConfig), all through
 * ConfigReading, whose errors name their variable and what it takes; ConfigProblems turns them into the
 * lines an operator sees when the server refuses to start. What other modules use is re-exported here.
 */

export { describeConfigError } from "./ConfigProblems.js"
export { variables } from "./ConfigReading.js"
export { describePostgres, type PostgresSettings } from "./DatabaseConfig.js"
export { EdgeConfig, type EdgeSettings } from "./EdgeConfig.js"
export type { MediaStorageSettings } from "./MediaStorageConfig.js"
export { RuntimeConfig, type RuntimeSettings } from "./RuntimeConfig.js"
export {
  metricsEnabled,
  type MetricsSettings,
  type OtlpProtocol,
  type SamplerName,
  type TracingSettings
} from "./TelemetryConfig.js"

/** `LOG_LEVEL` values and what each lets through. */
export const logLevels = {
  debug: "Debug",
  info: "Info",
  warning: "Warn",
  warn: "Warn",
  error: "Error",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

const logLevel = setting<LogLevel.LogLevel>(
  "LOG_LEVEL",
  "Info",
  `must be one of ${Object.keys(logLevels).join(", ")}`,
  (raw) => (Object.hasOwn(logLevels, raw) ? logLevels[raw as keyof typeof logLevels] : undefined),
  "info"
)

/** The settings of both database modes (see `ServerConfig`). */
const settings = allReported({
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

/**
 * The server settings; `postgres` is absent when the server runs on SQLite. Embedders and tests may leave
 * out `runtime`: the server then reads it from the environment (`RuntimeConfig`) as it starts.
 */
export type ServerConfig = Omit<Config.Success<typeof settings>, "mediaDir"> & {
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
export const ServerConfig: Effect.Effect<ServerConfig, Config.ConfigError> = Effect.gen(function* () {
  const { base, pg, runtime } = yield* allReported({ base: settings, pg: PostgresConfig, runtime: RuntimeConfig })
  return {
    ...base,
    ...(Option.isSome(pg) ? { postgres: pg.value } : {}),
    mediaStorage: yield* MediaStorageConfig,
    runtime
  }
})
