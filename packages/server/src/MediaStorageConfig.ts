import type { S3Settings } from "@catalog-sync/adapter-storage-s3"
import { type Config, Effect } from "effect"
import { setting } from "./ConfigReading.js"

/** Where processed images and staged uploads live. */
export type MediaStorageSettings =
  /** Folders under MEDIA_DIR and DATA_DIR/staging: one instance, or a folder shared by all. */
  | { readonly kind: "fs" }
  /** One bucket shared by every instance (`S3_*`). */
  | { readonly kind: "s3"; readonly s3: S3Settings.S3Settings }

/** `MEDIA_STORAGE=fs` (default) or `s3`. The S3 variables are read, and validated, only when s3 is chosen. */
export const MediaStorageConfig: Effect.Effect<MediaStorageSettings, Config.ConfigError> = Effect.flatMap(
  setting("MEDIA_STORAGE", "fs" as const, "must be fs or s3", (raw) =>
    raw === "fs" || raw === "s3" ? raw : undefined
  ),
  (kind): Effect.Effect<MediaStorageSettings, Config.ConfigError> =>
    kind === "s3"
      ? // Loaded only when chosen: the S3 SDK costs a filesystem deployment (and every CLI command) ~0.3 s and ~20 MB.
        Effect.promise(() => import("@catalog-sync/adapter-storage-s3")).pipe(
          Effect.flatMap((adapter) => adapter.S3Settings.S3Config),
          Effect.map((s3) => ({ kind, s3 }))
        )
      : Effect.succeed({ kind })
)
