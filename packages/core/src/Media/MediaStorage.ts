import { Context, type Effect, type Stream } from "effect"
import type { MediaStorageError } from "./MediaErrors.js"

/**
 * Processed media files, one folder per company (its `storage_slug`). Writes are atomic: a reader sees
 * the whole file or none. Keys are file names chosen by core (content-addressed).
 */
export class MediaStorage extends Context.Service<
  MediaStorage,
  {
    readonly put: (folder: string, key: string, data: Uint8Array) => Effect.Effect<void, MediaStorageError>
    readonly exists: (folder: string, key: string) => Effect.Effect<boolean, MediaStorageError>
    /** The file's bytes as a stream; fails with reason `not_found` when there is none. */
    readonly read: (folder: string, key: string) => Stream.Stream<Uint8Array, MediaStorageError>
    /** The file's size, or undefined when there is none. */
    readonly size: (folder: string, key: string) => Effect.Effect<number | undefined, MediaStorageError>
    /** Removing a missing file is not an error. */
    readonly remove: (folder: string, key: string) => Effect.Effect<void, MediaStorageError>
  }
>()("@catalog-sync/core/MediaStorage") {}

/**
 * How many first bytes of an upload staging keeps in memory: enough for the format and, for nearly every
 * image, the header with its dimensions and orientation, so that checking an upload does not read the
 * whole file back (8 concurrent 10 MB uploads would otherwise hold 80 MB).
 */
export const headBytes = 256 * 1024

/** An upload written to staging, with what was learned while it streamed. */
export interface StagedFile {
  readonly key: string
  readonly bytes: number
  /** Lower-case hex SHA-256 of the bytes. */
  readonly sha256: string
  /** The first bytes (up to `headBytes`): the format is sniffed from them, the image header read from them. */
  readonly head: Uint8Array
}

/** Uploads waiting for processing, written while they stream (never held whole in memory). */
export class MediaStaging extends Context.Service<
  MediaStaging,
  {
    /**
     * Writes the chunks to a new staged file as they arrive. When they fail (their iterator throws), what
     * was written is removed and the write fails with `sourceFailed` of what was thrown. An async iterable,
     * not an Effect stream: an upload's chunks pass here by the hundred, and a plain loop over them costs
     * half of what a stream's steps do (docs/performance.md).
     */
    readonly write: <E>(
      chunks: AsyncIterable<Uint8Array>,
      sourceFailed: (thrown: unknown) => E
    ) => Effect.Effect<StagedFile, E | MediaStorageError>
    readonly read: (key: string) => Effect.Effect<Uint8Array, MediaStorageError>
    readonly remove: (key: string) => Effect.Effect<void, MediaStorageError>
    /** Every staged file with its last modification time (for removing what a crash left behind). */
    readonly list: Effect.Effect<
      ReadonlyArray<{ readonly key: string; readonly modifiedMillis: number }>,
      MediaStorageError
    >
  }
>()("@catalog-sync/core/MediaStaging") {}
