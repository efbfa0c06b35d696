/**
 * A real S3 protocol server for tests: s3rver (an S3 implementation backed by a folder) on a free
 * loopback port, over a temp folder with one bucket, stopped and deleted when the scope closes. Each
 * server gets its own access key. s3rver refuses an unknown access key id with 403 InvalidAccessKeyId;
 * it does not verify SigV4 signatures, so a wrong secret with a known key id is accepted.
 *
 * @packageDocumentation
 */
import { Data, Effect, Option, Redacted, Result } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { normalizePrefix, type S3Settings } from "./S3Settings.js"

interface S3rverInstance {
  run(): Promise<{ readonly port: number }>
  close(): Promise<void>
}
interface S3rverOptions {
  readonly address: string
  readonly port: number
  readonly silent: boolean
  readonly directory: string
  readonly configureBuckets: ReadonlyArray<{ readonly name: string }>
}
interface Account {
  createKeyPair(accessKeyId: string, secretAccessKey: string): void
  revokeAccessKey(accessKeyId: string): void
}

// s3rver is CommonJS without types; loaded here only, in tests.
const require = createRequire(import.meta.url)
const S3rver = require("s3rver") as new (options: S3rverOptions) => S3rverInstance
const AWSAccount = require("s3rver/lib/models/account") as new (id: number, name: string) => Account

/** s3rver could not be started. */
export class S3ServerError extends Data.TaggedError("S3ServerError")<{ readonly message: string }> {}

/** A started test S3 server: its endpoint, bucket and keys, and the settings to reach it. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string
  readonly bucket: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** The folder s3rver keeps the bucket in. */
  readonly directory: string
  /** Settings for this server with `prefix` (default none) and the right keys. */
  readonly settings: (options?: { readonly prefix?: string; readonly accessKeyId?: string }) => S3Settings
  /** The server's environment for MEDIA_STORAGE=s3 with these settings. */
  readonly env: (options?: { readonly prefix?: string; readonly accessKeyId?: string }) => Record<string, string>
}

/** Starts s3rver on a free loopback port with one bucket (default `media`). */
export const startS3 = (options: { readonly bucket?: string } = {}) =>
  Effect.gen(function* () {
    const bucket = options.bucket ?? "media"
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-s3-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const accessKeyId = `TEST${randomBytes(8).toString("hex").toUpperCase()}`
    const secretAccessKey = randomBytes(20).toString("base64url")
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        new AWSAccount(100_000_000_000 + Math.floor(Math.random() * 1e9), "catalog-sync tests").createKeyPair(
          accessKeyId,
          secretAccessKey
        )
      ),
      () => Effect.sync(() => new AWSAccount(0, "").revokeAccessKey(accessKeyId))
    )
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }]
    })
    const address = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => server.run(),
        catch: (cause) => new S3ServerError({ message: `s3rver did not start: ${String(cause)}` })
      }),
      () => Effect.promise(() => server.close().catch(() => undefined))
    )
    const endpoint = `http://127.0.0.1:${address.port}`
    const settings = (choice: { readonly prefix?: string; readonly accessKeyId?: string } = {}): S3Settings => ({
      bucket,
      region: "us-east-1",
      endpoint: Option.some(endpoint),
      forcePathStyle: true,
      prefix: Result.getOrThrow(normalizePrefix(choice.prefix ?? "")),
      keys: Option.some({
        accessKeyId: choice.accessKeyId ?? accessKeyId,
        secretAccessKey: Redacted.make(secretAccessKey),
        sessionToken: Option.none()
      })
    })
    const env = (choice: { readonly prefix?: string; readonly accessKeyId?: string } = {}): Record<string, string> => ({
      MEDIA_STORAGE: "s3",
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: choice.accessKeyId ?? accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      ...(choice.prefix === undefined ? {} : { S3_PREFIX: choice.prefix })
    })
    return { endpoint, bucket, accessKeyId, secretAccessKey, directory, settings, env } satisfies TestS3
  })
