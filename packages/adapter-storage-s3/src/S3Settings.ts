import { Config, Effect, Option, type Redacted, Result, Schema, SchemaIssue } from "effect"

/** Keys given in the configuration; without them the AWS SDK's default credential chain is used. */
export interface S3Keys {
  readonly accessKeyId: string
  readonly secretAccessKey: Redacted.Redacted<string>
  readonly sessionToken: Option.Option<Redacted.Redacted<string>>
}

/** Where media objects live: `<prefix><storage_slug>/<key>`, uploads waiting for processing under `<prefix>_staging/`. */
export interface S3Settings {
  readonly bucket: string
  readonly region: string
  /** An S3-compatible service's URL (MinIO, Ceph, R2, ...); absent for AWS itself. */
  readonly endpoint: Option.Option<string>
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`; most S3-compatible services need it. */
  readonly forcePathStyle: boolean
  /** Empty, or ends with `/`. */
  readonly prefix: string
  readonly keys: Option.Option<S3Keys>
}

// S3's bucket naming rules, lower-case (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html).
const bucketName = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/

// The message names the variable: the CLI prints only the message. The issue points at the variable, as
// Effect's own config errors do.
const refuse = (name: string, message: string) =>
  Effect.fail(
    new Config.ConfigError(
      new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
    )
  )

const invalid = (name: string, message: string) => refuse(name, `${name} ${message}`)

const bucket = Config.option(Config.String("S3_BUCKET")).pipe(
  Config.mapEffect((value) => {
    const name = Option.getOrElse(value, () => "")
    if (name === "")
      return refuse("S3_BUCKET", "MEDIA_STORAGE=s3 needs S3_BUCKET, the name of the bucket that holds the media")
    return bucketName.test(name)
      ? Effect.succeed(name)
      : invalid("S3_BUCKET", `must be a bucket name (3-63 lower-case letters, digits, dots or dashes), not "${name}"`)
  })
)

const endpoint = Config.option(Config.String("S3_ENDPOINT")).pipe(
  Config.mapEffect((value): Effect.Effect<Option.Option<string>, Config.ConfigError> => {
    const url = Option.filter(value, (v) => v !== "")
    if (Option.isNone(url)) return Effect.succeed(url)
    return /^https?:\/\/[^/\s]+\/?$/.test(url.value)
      ? Effect.succeed(url)
      : invalid("S3_ENDPOINT", "must be an http(s) URL of the service, e.g. https://s3.example.com:9000 (no path)")
  })
)

/** `media/` and `media` both mean the folder `media/`; no leading slash, no empty segments. */
export const normalizePrefix = (raw: string): Result.Result<string, string> => {
  if (raw === "") return Result.succeed("")
  const prefix = raw.endsWith("/") ? raw : `${raw}/`
  return /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(prefix) &&
    !prefix.split("/").some((s) => s === "." || s === "..")
    ? Result.succeed(prefix)
    : Result.fail("must be folder names (letters, digits, dots, dashes, underscores) separated by /, e.g. media/")
}

const prefix = Config.String("S3_PREFIX").pipe(
  Config.withDefault(""),
  Config.mapEffect((raw) =>
    Result.match(normalizePrefix(raw), {
      onSuccess: Effect.succeed,
      onFailure: (message) => invalid("S3_PREFIX", message)
    })
  )
)

const keys = Config.all({
  accessKeyId: Config.option(Config.String("S3_ACCESS_KEY_ID")),
  secretAccessKey: Config.option(Config.Redacted("S3_SECRET_ACCESS_KEY")),
  sessionToken: Config.option(Config.Redacted("S3_SESSION_TOKEN"))
}).pipe(
  Config.mapEffect(({ accessKeyId, secretAccessKey, sessionToken }) => {
    if (Option.isSome(accessKeyId) && Option.isSome(secretAccessKey)) {
      return Effect.succeed(
        Option.some<S3Keys>({ accessKeyId: accessKeyId.value, secretAccessKey: secretAccessKey.value, sessionToken })
      )
    }
    if (Option.isNone(accessKeyId) && Option.isNone(secretAccessKey)) return Effect.succeed(Option.none<S3Keys>())
    return invalid(
      Option.isSome(accessKeyId) ? "S3_SECRET_ACCESS_KEY" : "S3_ACCESS_KEY_ID",
      "is missing: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or set neither to use the AWS credential chain)"
    )
  })
)

/** The S3 settings from the environment (`S3_*`); only read when MEDIA_STORAGE=s3. */
export const S3Config: Config.Config<S3Settings> = Config.all({
  bucket,
  region: Config.String("S3_REGION").pipe(
    Config.orElse(() => Config.String("AWS_REGION")),
    Config.withDefault("us-east-1")
  ),
  endpoint,
  forcePathStyle: Config.Boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false)),
  prefix,
  keys
})
