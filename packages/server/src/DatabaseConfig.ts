import { Config, Effect, Option, Redacted, Result } from "effect"
import { allReported, invalid, variable, wholeNumber } from "./ConfigReading.js"

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
const postgresUrl = (raw: string): Result.Result<string, string> => {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase()
  if (scheme === undefined)
    return Result.fail(`must be a PostgreSQL URL such as ${databaseUrlForm} (unset it to use SQLite)`)
  if (scheme !== "postgres" && scheme !== "postgresql") {
    return Result.fail(
      `is a ${scheme}:// URL; only PostgreSQL is supported (${databaseUrlForm}), or unset it to use SQLite`
    )
  }
  try {
    const url = new URL(raw)
    if (url.hostname === "" || url.pathname.length < 2)
      return Result.fail(`must name a host and a database: ${databaseUrlForm}`)
    return Result.succeed(raw)
  } catch {
    return Result.fail(
      `is not a valid URL; expected ${databaseUrlForm} (special characters in the password must be percent-encoded)`
    )
  }
}

/**
 * `DATABASE_URL` selects PostgreSQL, for several instances on one database; without it the server keeps
 * its embedded SQLite file.
 */
export const PostgresConfig: Config.Config<Option.Option<PostgresSettings>> = allReported({
  url: Config.option(Config.Redacted(variable("DATABASE_URL", undefined))).pipe(
    Config.mapEffect((value): Effect.Effect<Option.Option<Redacted.Redacted<string>>, Config.ConfigError> => {
      // An empty DATABASE_URL (a blank line in an env file) means "not set", not "connect to nothing".
      const url = Option.filter(value, (v) => Redacted.value(v).trim() !== "")
      if (Option.isNone(url)) return Effect.succeed(url)
      return Result.match(postgresUrl(Redacted.value(url.value).trim()), {
        onFailure: (what) => Effect.fail(invalid("DATABASE_URL", undefined, what)),
        onSuccess: () => Effect.succeed(url)
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
