import { Config, ConfigError, Either, Option, type Redacted } from "effect"

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

// The message names the variable: the CLI prints only the message.
const invalid = (name: string, message: string) => ConfigError.InvalidData([name], `${name} ${message}`)

const bucket = Config.option(Config.string("S3_BUCKET")).pipe(
  Config.mapOrFail((value) => {
    const name = Option.getOrElse(value, () => "")
    if (name === "")
      return Either.left(
        ConfigError.MissingData(
          ["S3_BUCKET"],
          "MEDIA_STORAGE=s3 needs S3_BUCKET, the name of the bucket that holds the media"
        )
      )
    return bucketName.test(name)
      ? Either.right(name)
      : Either.left(
          invalid("S3_BUCKET", `must be a bucket name (3-63 lower-case letters, digits, dots or dashes), not "${name}"`)
        )
  })
)

const endpoint = Config.option(Config.string("S3_ENDPOINT")).pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
    const url = Option.filter(value, (v) => v !== "")
    if (Option.isNone(url)) return Either.right(url)
    return /^https?:\/\/[^/\s]+\/?$/.test(url.value)
      ? Either.right(url)
      : Either.left(
          invalid("S3_ENDPOINT", "must be an http(s) URL of the service, e.g. https://s3.example.com:9000 (no path)")
        )
  })
)

/** `media/` and `media` both mean the folder `media/`; no leading slash, no empty segments. */
export const normalizePrefix = (raw: string): Either.Either<string, string> => {
  if (raw === "") return Either.right("")
  const prefix = raw.endsWith("/") ? raw : `${raw}/`
  return /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(prefix) &&
    !prefix.split("/").some((s) => s === "." || s === "..")
    ? Either.right(prefix)
    : Either.left("must be folder names (letters, digits, dots, dashes, underscores) separated by /, e.g. media/")
}

const prefix = Config.string("S3_PREFIX").pipe(
  Config.withDefault(""),
  Config.mapOrFail((raw) => Either.mapLeft(normalizePrefix(raw), (message) => invalid("S3_PREFIX", message)))
)

const keys = Config.all({
  accessKeyId: Config.option(Config.string("S3_ACCESS_KEY_ID")),
  secretAccessKey: Config.option(Config.redacted("S3_SECRET_ACCESS_KEY")),
  sessionToken: Config.option(Config.redacted("S3_SESSION_TOKEN"))
}).pipe(
  Config.mapOrFail(({ accessKeyId, secretAccessKey, sessionToken }) => {
    if (Option.isSome(accessKeyId) && Option.isSome(secretAccessKey)) {
      return Either.right(
        Option.some<S3Keys>({ accessKeyId: accessKeyId.value, secretAccessKey: secretAccessKey.value, sessionToken })
      )
    }
    if (Option.isNone(accessKeyId) && Option.isNone(secretAccessKey)) return Either.right(Option.none<S3Keys>())
    return Either.left(
      invalid(
        Option.isSome(accessKeyId) ? "S3_SECRET_ACCESS_KEY" : "S3_ACCESS_KEY_ID",
        "is missing: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or set neither to use the AWS credential chain)"
      )
    )
  })
)

/** The S3 settings from the environment (`S3_*`); only read when MEDIA_STORAGE=s3. */
export const S3Config: Config.Config<S3Settings> = Config.all({
  bucket,
  region: Config.string("S3_REGION").pipe(
    Config.orElse(() => Config.string("AWS_REGION")),
    Config.withDefault("us-east-1")
  ),
  endpoint,
  forcePathStyle: Config.boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false)),
  prefix,
  keys
})
