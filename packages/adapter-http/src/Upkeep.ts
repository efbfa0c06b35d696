/**
 * The background upkeep a host of the API runs next to it, each in a fiber of the layer's scope: purges of
 * idempotency records and finished imports past their retention, ended panel sessions and old sign-in
 * failures, and the sweep of abandoned uploads.
 */
import {
  Idempotency,
  IdempotencyStore,
  type ImportStore,
  JobRetention,
  MediaService,
  MediaStagingSweep,
  PeopleAdmin,
  type MediaRepository,
  type MediaStorage,
  type Transactor
} from "@catalog-sync/core"
import { Clock, Duration, Effect, Layer, Schedule } from "effect"

/** Forgets completed idempotency records past their retention, once an hour. */
export const IdempotencyPurge: Layer.Layer<never, never, IdempotencyStore.IdempotencyStore> = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* IdempotencyStore.IdempotencyStore
    const purge = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const removed = yield* store.purge(now - Idempotency.retentionMillis)
      if (removed > 0)
        yield* Effect.logDebug("purged idempotency records").pipe(Effect.annotateLogs("removed", removed))
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("idempotency purge failed", cause)))
    yield* Effect.forkScoped(Effect.repeat(purge, Schedule.spaced("1 hour")))
  })
)

/**
 * Deletes ended panel sessions and sign-in failures out of the throttle's window, every 5 minutes: one
 * bounded statement for each per run (`PeopleAdmin.purgeBatch`), so a backlog is worked off over several.
 */
export const PanelPurge: Layer.Layer<never, never, PeopleAdmin.PeopleAdmin> = Layer.effectDiscard(
  Effect.gen(function* () {
    const people = yield* PeopleAdmin.PeopleAdmin
    const purge = people.purgeExpired().pipe(
      Effect.tap(({ failures, sessions }) =>
        sessions + failures > 0
          ? Effect.logDebug("purged ended panel sessions and old sign-in failures").pipe(
              Effect.annotateLogs({ sessions, failures })
            )
          : Effect.void
      ),
      Effect.catchCause((cause) => Effect.logWarning("panel purge failed", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(purge, Schedule.spaced("5 minutes")))
  })
)

/**
 * Deletes finished import jobs past `retention` with their records, every 5 minutes: each run a bounded
 * number of short transactions, so a backlog is worked off over several runs.
 */
export const JobRetentionPurge = (
  retention: Duration.Duration
): Layer.Layer<never, never, ImportStore.ImportStore | Transactor.Transactor> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const purge = JobRetention.purgeFinishedImports({ retentionMillis: Duration.toMillis(retention) }).pipe(
        Effect.tap((removed) =>
          removed > 0
            ? Effect.logDebug("purged finished import jobs").pipe(Effect.annotateLogs("removed", removed))
            : Effect.void
        ),
        Effect.catchCause((cause) => Effect.logWarning("job retention purge failed", cause))
      )
      yield* Effect.forkScoped(Effect.repeat(purge, Schedule.spaced("5 minutes")))
    })
  )

/**
 * Removes staged uploads that a crash left behind (no item waiting for processing references them and
 * they are older than the grace period), and the images of media jobs that failed a day ago and were not
 * retried: once at start, then every hour.
 */
export const StagingSweep: Layer.Layer<
  never,
  never,
  MediaService.MediaService | MediaStorage.MediaStaging | MediaRepository.MediaRepository
> = Layer.effectDiscard(
  Effect.gen(function* () {
    const media = yield* MediaService.MediaService
    const sweep = MediaStagingSweep.sweepStaging().pipe(
      Effect.tap((removed) =>
        removed > 0
          ? Effect.logInfo("removed staged uploads left behind").pipe(Effect.annotateLogs("removed", removed))
          : Effect.void
      ),
      Effect.andThen(
        media
          .releaseFailedUploads()
          .pipe(
            Effect.tap((removed) =>
              removed > 0
                ? Effect.logInfo("removed the staged images of failed media jobs").pipe(
                    Effect.annotateLogs("removed", removed)
                  )
                : Effect.void
            )
          )
      ),
      Effect.catchCause((cause) => Effect.logWarning("staging sweep failed", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced("1 hour")))
  })
)
