import { SharpImageProcessor } from "@catalog-sync/adapter-image-sharp"
import { FsMediaStorage } from "@catalog-sync/adapter-storage-fs"
import type { S3Settings } from "@catalog-sync/adapter-storage-s3"
import type { ImageProcessor, MediaErrors, MediaStorage } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import type { ServerConfig } from "./ServerConfig.js"
import { mediaDir } from "./Startup.js"

/** The media ports the server runs with. */
export type MediaPorts = MediaStorage.MediaStorage | MediaStorage.MediaStaging | ImageProcessor.ImageProcessor

/**
 * Reports at start whether the bucket answers with these credentials. The server starts either way: the
 * catalog API does not depend on media, and a refused write pauses the company's media job (an operator
 * fixes the credentials and retries it, see docs/deploy.md).
 */
const S3Probe = (probe: Effect.Effect<void, MediaErrors.MediaStorageError>, settings: S3Settings.S3Settings) =>
  // In the background: an endpoint that does not answer must not hold the start up for its timeouts.
  Layer.effectDiscard(
    Effect.forkScoped(
      probe.pipe(
        Effect.andThen(Effect.logInfo("media storage: S3 bucket reachable")),
        Effect.catch((error) =>
          Effect.logWarning(
            error.reason === "unavailable"
              ? "media storage: the S3 endpoint does not answer; uploads fail with 503 until it does"
              : "media storage: S3 refuses access to the bucket (or it does not exist); uploads fail and image processing pauses until the configuration is fixed"
          ).pipe(Effect.annotateLogs({ bucket: settings.bucket, error: error.message }))
        ),
        Effect.annotateLogs({ bucket: settings.bucket })
      )
    )
  )

/** The processed-media storage alone, as MEDIA_STORAGE selects it (the admin CLI's storage check). */
export const MediaStorageLive = (config: ServerConfig): Layer.Layer<MediaStorage.MediaStorage> => {
  const storage = config.mediaStorage ?? { kind: "fs" as const }
  return storage.kind === "s3"
    ? Layer.unwrap(
        Effect.map(
          Effect.promise(() => import("@catalog-sync/adapter-storage-s3")),
          ({ S3MediaStorage }) => S3MediaStorage.layer(storage.s3)
        )
      )
    : FsMediaStorage.layer(mediaDir(config))
}

/** The S3 media ports; the adapter (and the AWS SDK) is loaded only when MEDIA_STORAGE=s3. */
const S3PortsLive = (settings: S3Settings.S3Settings) =>
  Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("@catalog-sync/adapter-storage-s3")),
      ({ S3MediaStorage }) =>
        Layer.merge(S3MediaStorage.layer(settings), S3Probe(S3MediaStorage.probe(settings), settings))
    )
  )

/**
 * The media ports, images processed with sharp. MEDIA_STORAGE=fs: files under MEDIA_DIR, uploads staged
 * under `<DATA_DIR>/staging`. MEDIA_STORAGE=s3: both in one bucket, shared by every instance.
 */
export const MediaPortsLive = (config: ServerConfig): Layer.Layer<MediaPorts> => {
  const storage = config.mediaStorage ?? { kind: "fs" as const }
  return storage.kind === "s3"
    ? Layer.mergeAll(S3PortsLive(storage.s3), SharpImageProcessor.layer)
    : Layer.mergeAll(
        FsMediaStorage.layer(mediaDir(config)),
        FsMediaStorage.stagingLayer(join(config.dataDir, "staging")),
        SharpImageProcessor.layer
      )
}
