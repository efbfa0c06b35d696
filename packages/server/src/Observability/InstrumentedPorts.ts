import { IdempotencyStore, ImageProcessor, ImportStore, JobKinds, RateLimiter, Transactor } from "@catalog-sync/core"
import { Cause, Effect, Exit, Layer } from "effect"
import { performance } from "node:perf_hooks"
import * as Instruments from "./Instruments.js"

/**
 * The ports wrapped so that their use is measured, without the core or the adapters knowing: each layer
 * reads the port it is given and provides it again, measured. Only installed when metrics are on.
 */

const elapsedSeconds = (started: number) => (performance.now() - started) / 1000

/** Runs `effect` and records its duration under the labels its exit gives. */
const timed = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  metric: typeof Instruments.transactionDuration,
  labels: (exit: Exit.Exit<A, E>) => Readonly<Record<string, string>>
) =>
  Effect.suspend(() => {
    const started = performance.now()
    return Effect.onExit(effect, (exit) =>
      Effect.sync(() => Instruments.record(metric, elapsedSeconds(started), labels(exit)))
    )
  })

/** `effect` with `f` run on its value as it succeeds: recording is synchronous, no Effect of its own. */
const onValue = <A, E, R>(effect: Effect.Effect<A, E, R>, f: (value: A) => void): Effect.Effect<A, E, R> =>
  Effect.map(effect, (value) => {
    f(value)
    return value
  })

export const transactor = Layer.effect(
  Transactor.Transactor,
  Effect.map(Transactor.Transactor, (inner) =>
    Transactor.Transactor.of({
      withTransaction: (effect) =>
        timed(inner.withTransaction(effect), Instruments.transactionDuration, (exit) => ({
          outcome: Exit.isSuccess(exit) ? "commit" : "rollback"
        })),
      // Mostly joins a transaction measured above; timing it would count a part of one as a transaction.
      atomically: inner.atomically
    })
  )
)

export const idempotencyStore = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  Effect.map(IdempotencyStore.IdempotencyStore, (inner) =>
    IdempotencyStore.IdempotencyStore.of({
      ...inner,
      claim: (request) =>
        onValue(inner.claim(request), (claim) => {
          if (claim._tag === "Replay") Instruments.record(Instruments.idempotencyReplays, 1, {})
          else if (claim._tag === "Mismatch")
            Instruments.record(Instruments.idempotencyConflicts, 1, { reason: "mismatch" })
          else if (claim._tag === "InProgress")
            Instruments.record(Instruments.idempotencyConflicts, 1, { reason: "in_progress" })
        })
    })
  )
)

export const importStore = Layer.effect(
  ImportStore.ImportStore,
  Effect.map(ImportStore.ImportStore, (inner) =>
    ImportStore.ImportStore.of({
      ...inner,
      markApplied: (...args) => onValue(inner.markApplied(...args), (marked) => count(marked, "applied")),
      markAppliedMany: (...args) =>
        onValue(inner.markAppliedMany(...args), (marked) => {
          if (marked > 0) Instruments.record(Instruments.importRecords, marked, { outcome: "applied" })
        }),
      markFailed: (...args) => onValue(inner.markFailed(...args), (marked) => count(marked, "failed"))
    })
  )
)

/** A mark that matched no record (another worker's) is not counted. */
const count = (marked: unknown, outcome: string) => {
  if (marked !== false) Instruments.record(Instruments.importRecords, 1, { outcome })
}

/** The bucket prefix (`key:…`, `company:…`, `auth-failures:…`) names the limit, never the key or company itself. */
const limitOf = (bucket: string) => {
  const kind = bucket.slice(0, bucket.indexOf(":"))
  return kind === "key" || kind === "company" ? kind : kind === "auth-failures" ? "auth_failures" : "other"
}

export const rateLimiter = Layer.effect(
  RateLimiter.RateLimiter,
  Effect.map(RateLimiter.RateLimiter, (inner) =>
    RateLimiter.RateLimiter.of({
      consume: (bucket, limit, window, now) =>
        onValue(inner.consume(bucket, limit, window, now), (state) => {
          if (!state.allowed) Instruments.record(Instruments.rateLimitRejections, 1, { limit: limitOf(bucket) })
        }),
      consumeInOrder: (buckets, window, now) =>
        onValue(inner.consumeInOrder(buckets, window, now), (states) => {
          const refused = states.findIndex((state) => !state.allowed)
          if (refused >= 0)
            Instruments.record(Instruments.rateLimitRejections, 1, { limit: limitOf(buckets[refused]!.bucket) })
        }),
      usage: inner.usage
    })
  )
)

export const imageProcessor = Layer.effect(
  ImageProcessor.ImageProcessor,
  Effect.map(ImageProcessor.ImageProcessor, (inner) =>
    ImageProcessor.ImageProcessor.of({
      ...inner,
      process: (...args) =>
        timed(inner.process(...args), Instruments.imageProcessingDuration, (exit) => ({
          result: Exit.isSuccess(exit) ? "ok" : "rejected"
        }))
    })
  )
)

/** `lost_lease` only when losing the lease is the run's one failure. */
const jobOutcome = (exit: Exit.Exit<unknown, { readonly _tag?: string }>) => {
  if (Exit.isSuccess(exit)) return "finished"
  const reasons = exit.cause.reasons
  const only = reasons.length === 1 ? reasons[0] : undefined
  if (only !== undefined && Cause.isFailReason(only) && only.error._tag === "LeaseLost") return "lost_lease"
  return Exit.hasInterrupts(exit) ? "interrupted" : "failed"
}

export const jobKinds = Layer.effect(
  JobKinds.JobKinds,
  Effect.map(JobKinds.JobKinds, (inner) => {
    const measured = (kind: keyof typeof inner) => ({
      ...inner[kind],
      process: (...args: Parameters<JobKinds.JobKindHandler["process"]>) =>
        timed(inner[kind].process(...args), Instruments.jobDuration, (exit) => ({ kind, outcome: jobOutcome(exit) }))
    })
    return JobKinds.JobKinds.of({ import: measured("import"), media: measured("media") })
  })
)
