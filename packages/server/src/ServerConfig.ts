import { Config, LogLevel } from "effect"

/**
 * Server settings from the environment. The defaults make `npm start` work on a fresh machine: port
 * 8080, SQLite database and media folder under ./data.
 */
export const ServerConfig = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
  databaseFile: Config.option(Config.string("SQLITE_FILE")),
  /** Requests still running at shutdown get this long to finish. */
  shutdownTimeoutSeconds: Config.integer("SHUTDOWN_TIMEOUT_SECONDS").pipe(Config.withDefault(20)),
  /** debug, info (one line per request), warning, error. */
  logLevel: Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))
})
export type ServerConfig = Config.Config.Success<typeof ServerConfig>
