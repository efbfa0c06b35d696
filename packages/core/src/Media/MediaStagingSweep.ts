import { Clock, Effect } from "effect"
import { MediaRepository } from "./MediaRepository.js"
import { MediaStaging } from "./MediaStorage.js"

/**
 * How old an unreferenced staged file must be before it is removed: an upload streams into staging
 * before its item is recorded, so a young file without an item may be an upload in progress.
 */
export const stagingGraceMillis = 60 * 60 * 1000

/**
 * Removes staged files that no item waiting for processing references and that are older than
 * `graceMillis`: what a crash left between staging and recording an upload, or between processing and
 * removing its file. The files are listed before the references are read, so a file recorded in
 * between is seen as referenced. Returns how many files were removed.
 */
export const sweepStaging = (graceMillis: number = stagingGraceMillis) =>
  Effect.gen(function* () {
    const staging = yield* MediaStaging
    const repository = yield* MediaRepository
    const files = yield* staging.list
    const now = yield* Clock.currentTimeMillis
    const old = files.filter((file) => now - file.modifiedMillis > graceMillis)
    if (old.length === 0) return 0
    const referenced = yield* repository.referencedStagedKeys
    const orphans = old.filter((file) => !referenced.has(file.key))
    // One file that cannot be removed does not keep the others.
    const removed = yield* Effect.forEach(orphans, (file) => Effect.result(staging.remove(file.key)))
    const failed = removed.flatMap((result) => (result._tag === "Failure" ? [result.failure] : []))
    if (failed.length > 0)
      yield* Effect.logWarning("some staged files could not be removed", failed[0]).pipe(
        Effect.annotateLogs("failed", failed.length)
      )
    return removed.length - failed.length
  })
