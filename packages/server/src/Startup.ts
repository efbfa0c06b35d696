import { Config, Data, Effect, Layer, Option } from "effect"
import { HttpServer, HttpServerError } from "effect/http"
import { Migrator, SqlError } from "effect/sql"
import { accessSync, constants, mkdirSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { describeConfigError, describePostgres, type RuntimeSettings, type ServerConfig } from "./ServerConfig.js"
import { recordServerUrl } from "./ServerUrlFile.js"

/** Why the server did not start, and the setting to change; `variable` names it for scripts. */
export class StartupError extends Data.TaggedError("StartupError")<{
  readonly code: string
  readonly message: string
  readonly variable?: string
}> {}

const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** `CODE: message`, once: Node's system errors already start their message with the code. */
const withCode = (cause: unknown): string => {
  const code = errorCode(cause)
  const message = messageOf(cause)
  return code === undefined || message.startsWith(code) ? message : `${code}: ${message}`
}

/**
 * The innermost error with a system or SQLSTATE code, through `cause` chains (SqlError wraps its reason,
 * which wraps the driver's error).
 */
const rootCause = (error: unknown): unknown => {
  let current = error
  for (let depth = 0; depth < 5; depth++) {
    if (errorCode(current) !== undefined) return current
    if (typeof current !== "object" || current === null || !("cause" in current)) return current
    current = current.cause
  }
  return current
}

const folderProblem = (folder: string): string | undefined => {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    accessSync(folder, constants.R_OK | constants.W_OK)
    return undefined
  } catch (error) {
    return withCode(error)
  }
}

/** Processed images (`MEDIA_DIR`, default `<DATA_DIR>/media`). */
export const mediaDir = (config: ServerConfig) =>
  Option.getOrElse(config.mediaDir ?? Option.none(), () => join(config.dataDir, "media"))

/** The SQLite file the server uses: `DATABASE_FILE`, or `catalog-sync.db` in the data folder. */
export const databaseFile = (config: ServerConfig) =>
  Option.getOrElse(config.databaseFile, () => join(config.dataDir, "catalog-sync.db"))

/**
 * The folders the server writes to exist (they are created) and are writable, checked before anything
 * opens them, so that a bad DATA_DIR stops the start with its name rather than a driver's message.
 */
export const checkFolders = (config: ServerConfig): Effect.Effect<void, StartupError> =>
  Effect.gen(function* () {
    const folders: Array<{ folder: string; variable: string; use: string }> = []
    if (config.postgres === undefined) {
      folders.push({
        folder: dirname(databaseFile(config)),
        variable: Option.isSome(config.databaseFile) ? "SQLITE_FILE" : "DATA_DIR",
        use: "the SQLite database"
      })
    }
    if ((config.mediaStorage?.kind ?? "fs") === "fs") {
      folders.push({
        folder: mediaDir(config),
        variable: Option.isSome(config.mediaDir ?? Option.none()) ? "MEDIA_DIR" : "DATA_DIR",
        use: "media"
      })
      folders.push({ folder: join(config.dataDir, "staging"), variable: "DATA_DIR", use: "staged uploads" })
    }
    for (const { folder, variable, use } of folders) {
      const problem = folderProblem(folder)
      if (problem !== undefined) {
        return yield* new StartupError({
          code: "data_dir_unusable",
          variable,
          message: `cannot use the folder ${resolve(folder)} for ${use} (${problem}); set ${variable} to a folder this process can create and write`
        })
      }
    }
  })

const databaseProblem = (config: ServerConfig, error: SqlError.SqlError | Migrator.MigrationError): StartupError => {
  if (error._tag === "MigrationError") {
    return new StartupError({ code: "migration_failed", message: `the database migrations failed: ${error.message}` })
  }
  const root = rootCause(error)
  const code = errorCode(root)
  const detail = withCode(root)
  if (config.postgres === undefined) {
    return new StartupError({
      code: "database_unusable",
      variable: "SQLITE_FILE",
      message: `cannot open the SQLite database ${resolve(databaseFile(config))} (${detail}); set DATA_DIR or SQLITE_FILE to a writable place`
    })
  }
  const where = describePostgres(config.postgres)
  // SQLSTATE classes 28 (authentication) and 3D (no such database): the server answers, the URL is wrong.
  const refused = code !== undefined && (code.startsWith("28") || code === "3D000")
  return new StartupError({
    code: refused ? "database_refused" : "database_unreachable",
    variable: "DATABASE_URL",
    message: refused
      ? `PostgreSQL at ${where} refused the connection (${detail}); check the user, password and database in DATABASE_URL`
      : `cannot reach PostgreSQL at ${where} (${detail}); check the host and port in DATABASE_URL and that the database server runs`
  })
}

const serveProblem = (config: ServerConfig, error: HttpServerError.ServeError): StartupError => {
  const code = errorCode(rootCause(error.cause))
  const detail = withCode(rootCause(error.cause))
  switch (code) {
    case "EADDRINUSE":
      return new StartupError({
        code: "port_in_use",
        variable: "PORT",
        message: `port ${config.port} on ${config.host} is already in use (another server is running there?); set PORT to a free port or stop the other process`
      })
    case "EACCES":
      return new StartupError({
        code: "port_not_permitted",
        variable: "PORT",
        message: `this process may not listen on port ${config.port} (${detail}); set PORT to 1024 or above`
      })
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EADDRNOTAVAIL":
    case "EAFNOSUPPORT":
    case "EINVAL":
      return new StartupError({
        code: "host_invalid",
        variable: "HOST",
        message: `cannot listen on HOST=${config.host} (${detail}); set HOST to an address of this machine: 0.0.0.0 (every interface), 127.0.0.1 (this machine only) or one interface's address`
      })
    default:
      return new StartupError({
        code: "listen_failed",
        message: `cannot listen on ${config.host}:${config.port} (${detail}); check HOST and PORT`
      })
  }
}

/** Why the server did not start, as one line naming the setting to change. */
export const describeStartFailure = (config: ServerConfig, error: unknown): StartupError => {
  if (error instanceof StartupError) return error
  if (error instanceof Config.ConfigError)
    return new StartupError({ code: "config_invalid", message: describeConfigError(error) })
  if (error instanceof HttpServerError.ServeError) return serveProblem(config, error)
  if (SqlError.isSqlError(error) || error instanceof Migrator.MigrationError) return databaseProblem(config, error)
  return new StartupError({ code: "start_failed", message: messageOf(error) })
}

/** The URL a person on this machine opens: a wildcard address means every interface, so localhost works. */
export const localUrl = (host: string, port: number) => {
  const name =
    host === "0.0.0.0" || host === "::" || host === "" ? "localhost" : host.includes(":") ? `[${host}]` : host
  return `http://${name}:${port}`
}

/** What this instance runs on, for the start-up line (never the database password). */
export const describeSetup = (config: ServerConfig, runtime: RuntimeSettings) => {
  const storage = config.mediaStorage ?? { kind: "fs" as const }
  return {
    database:
      config.postgres === undefined
        ? `sqlite ${resolve(databaseFile(config))}`
        : `postgresql ${describePostgres(config.postgres)}`,
    media_storage:
      storage.kind === "s3" ? `s3 ${storage.s3.bucket}/${storage.s3.prefix}` : `fs ${resolve(mediaDir(config))}`,
    job_workers: runtime.jobWorkers,
    metrics: describeMetrics(runtime),
    tracing: describeTracing(runtime)
  }
}

const describeMetrics = (runtime: RuntimeSettings) => {
  const { port, onMainPort } = runtime.metrics
  const own = Option.isSome(port) ? `GET /metrics on port ${port.value}` : undefined
  const main = onMainPort ? "GET /metrics on the API's port" : undefined
  return [own, main].filter((part) => part !== undefined).join(" and ") || "off"
}

/** Where spans go and which are kept; the URL without any user or password it may carry. */
const describeTracing = (runtime: RuntimeSettings) =>
  Option.match(runtime.tracing, {
    onNone: () => "off",
    onSome: (tracing) => {
      const url = new URL(tracing.url)
      url.username = ""
      url.password = ""
      const ratio = tracing.sampler.endsWith("traceidratio") ? ` ${tracing.ratio}` : ""
      return `otlp ${tracing.protocol} ${url.toString()} (${tracing.sampler}${ratio})`
    }
  })

/**
 * One line when the server listens, saying what runs (database, media storage, job workers, where the
 * portal is), and one when shutdown begins; the URL is recorded in the data folder meanwhile, for the CLI.
 */
export const StartupLog = (config: ServerConfig, runtime: RuntimeSettings, started: { running: boolean }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const port = server.address._tag === "UnixPathAddress" ? config.port : server.address.port
      const url = localUrl(config.host, port)
      started.running = true
      // Recorded before the line that says so: whoever reads the line finds the file.
      yield* recordServerUrl(config.dataDir, url)
      yield* Effect.logInfo("catalog-sync is running").pipe(
        Effect.annotateLogs({
          url,
          docs: `${url}/docs`,
          panel: runtime.panelEnabled ? `${url}/panel` : "off",
          listen: `${config.host}:${port}`,
          ...describeSetup(config, runtime)
        })
      )
      yield* Effect.addFinalizer(() =>
        Effect.logInfo("shutting down").pipe(Effect.annotateLogs({ drain_seconds: config.shutdownTimeoutSeconds }))
      )
    })
  )
