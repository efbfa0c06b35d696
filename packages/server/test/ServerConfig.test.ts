import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { ServerConfig } from "../src/ServerConfig.js"

const load = (env: Record<string, string>) => Effect.either(Effect.withConfigProvider(ServerConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("media storage settings", () => {
  it.effect("the filesystem by default; the S3 variables are read only with MEDIA_STORAGE=s3", () =>
    Effect.gen(function* () {
      expect(Either.getOrThrow(yield* load({})).mediaStorage).toEqual({ kind: "fs" })
      // A stray S3 variable does not stop a filesystem deployment.
      expect(Either.getOrThrow(yield* load({ MEDIA_STORAGE: "fs", S3_ENDPOINT: "not a url" })).mediaStorage).toEqual({ kind: "fs" })
      expect(Either.getOrThrow(yield* load({ MEDIA_STORAGE: "s3", S3_BUCKET: "media", S3_PREFIX: "a" })).mediaStorage).toMatchObject({
        kind: "s3",
        s3: { bucket: "media", prefix: "a/" }
      })
    }))

  it.effect("MEDIA_STORAGE=s3 without a bucket, or an unknown storage, stops the start with a message naming the variable", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(load({ MEDIA_STORAGE: "s3" }).pipe(Effect.flatten))
      expect(String(missing)).toBe('(Missing data at S3_BUCKET: "MEDIA_STORAGE=s3 needs S3_BUCKET, the name of the bucket that holds the media")')
      const unknown = yield* Effect.flip(load({ MEDIA_STORAGE: "gcs" }).pipe(Effect.flatten))
      expect(String(unknown)).toContain("MEDIA_STORAGE")
    }))
})
