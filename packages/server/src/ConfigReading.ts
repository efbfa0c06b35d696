import { Config, Duration, Effect, Option, Record, Result, Schema, SchemaAST, SchemaIssue } from "effect"

/**
 * How a setting is declared and read from the environment: the kinds of values (`setting`, `wholeNumber`,
 * `seconds`, ...), errors that name their variable (`PORT=abc must be a port number from 1 to 65535`), since
 * an operator sees only that line when the server refuses to start, and `allReported`, which reports every
 * invalid setting at once. The settings themselves are declared per concern (ServerConfig, DatabaseConfig,
 * MediaStorageConfig, EdgeConfig, RuntimeConfig, TelemetryConfig).
 */

/**
 * Every environment variable the settings read, with its default as `docs/configuration.md` writes it
 * (`undefined`: unset, the feature off or the value derived from another setting). Filled as the settings
 * are declared; `test/docs-configuration.test.ts` holds the page to it. The S3 adapter reads the `S3_*`
 * variables itself.
 */
const declared = new Map<string, string | undefined>()
export const variables: ReadonlyMap<string, string | undefined> = declared

/** Declares `name` with its documented default and gives it back. */
export const variable = (name: string, fallback: string | undefined): string => {
  declared.set(name, fallback)
  return name
}

/** A default as the docs write it: absent values (`null`, `Option.none()`) are "unset". */
const shown = (fallback: unknown): string | undefined =>
  typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean"
    ? String(fallback)
    : undefined

/** A setting's error: the message names the variable, the path names it for `describeConfigError`. */
export const configError = (name: string, message: string) =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
  )

export const invalid = (name: string, raw: string | undefined, what: string) =>
  configError(name, `${name}${raw === undefined ? "" : `=${raw}`} ${what}`)

/**
 * `Config.all` for a record of settings, reporting every invalid one (`Config.all` stops at the first):
 * an operator fixes them all in one go.
 */
export const allReported = <const R extends Record<string, Config.Config<unknown>>>(
  configs: R
): Config.Config<{ -readonly [K in keyof R]: Config.Success<R[K]> }> =>
  Config.all(
    Record.map(configs, (config) =>
      config.pipe(
        Config.map((value): Result.Result<unknown, Config.ConfigError> => Result.succeed(value)),
        Config.orElse((error) => Config.succeed(Result.fail(error)))
      )
    )
  ).pipe(
    Config.mapEffect((results) => {
      const errors = Object.values(results).flatMap((result) => (Result.isFailure(result) ? [result.failure] : []))
      if (errors.length === 0) {
        return Effect.succeed(
          Record.map(results, (result) => (Result.isSuccess(result) ? result.success : undefined)) as {
            -readonly [K in keyof R]: Config.Success<R[K]>
          }
        )
      }
      return Effect.fail(errors.length === 1 ? errors[0]! : combined(errors))
    })
  )

/** Several errors as one: their issues side by side (a source error, which has none, as a message). */
const combined = (errors: ReadonlyArray<Config.ConfigError>): Config.ConfigError => {
  const issues = errors.map((error) =>
    error.cause._tag === "SourceError"
      ? new SchemaIssue.InvalidValue({ message: error.cause.message })
      : error.cause.issue
  )
  return new Config.ConfigError(
    new Schema.SchemaError(
      new SchemaIssue.Composite(SchemaAST.unknown, issues as [SchemaIssue.Issue, ...Array<SchemaIssue.Issue>])
    )
  )
}

/**
 * A variable parsed by `parse` (undefined: not valid, `what` says what it takes). Unset or empty means
 * the default: an empty line in an env file is not a value.
 */
export const setting = <A>(
  name: string,
  fallback: A,
  what: string,
  parse: (raw: string) => A | undefined,
  documented: string | undefined = shown(fallback)
): Config.Config<A> =>
  Config.option(Config.String(variable(name, documented))).pipe(
    Config.mapEffect((value) => {
      const raw = Option.getOrElse(value, () => "").trim()
      if (raw === "") return Effect.succeed(fallback)
      const parsed = parse(raw)
      return parsed === undefined ? Effect.fail(invalid(name, raw, what)) : Effect.succeed(parsed)
    })
  )

export const wholeNumber = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
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
export const seconds = (name: string, fallback: number, min: number) =>
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

export const text = (name: string, fallback: string) => setting(name, fallback, "", (raw) => raw)
export const optionalText = (name: string) =>
  setting<Option.Option<string>>(name, Option.none(), "", (raw) => Option.some(raw))
export const onOff = (name: string, fallback: boolean) =>
  setting(name, fallback, "must be true or false", (raw) =>
    raw === "true" ? true : raw === "false" ? false : undefined
  )

/** Fails with `message` (naming the variable) unless `valid`. */
export const validated =
  <A>(name: string, message: string, valid: (value: A) => boolean) =>
  (self: Config.Config<A>): Config.Config<A> =>
    Config.mapEffect(self, (value) => (valid(value) ? Effect.succeed(value) : Effect.fail(configError(name, message))))
