import { Context, Effect, Layer, Queue } from "effect"

/**
 * Wakes an idle job worker of this process as soon as a job is queued, instead of at its next poll.
 * Only a shortcut: workers still poll (other instances' jobs, and any job whose signal was missed), so
 * the default, which never signals, is correct, only slower. Notify once the job is committed (after
 * the request's outermost transaction), or the worker may look before the job is visible.
 */
export interface JobSignal {
  readonly notify: Effect.Effect<void>
  readonly wait: Effect.Effect<void>
}
/** The job signal of this process (a reference: by default it never signals). */
export const JobSignal = Context.Reference<JobSignal>("@catalog-sync/core/JobSignal", {
  defaultValue: () => ({ notify: Effect.void, wait: Effect.never })
})

/** A signal for the workers of one process: notifications while no worker waits collapse into one. */
export const make = Effect.map(Queue.sliding<void>(1), (queue) =>
  JobSignal.of({ notify: Effect.asVoid(Queue.offer(queue, undefined)), wait: Queue.take(queue) })
)

/** The signal of one process. */
export const layer: Layer.Layer<never> = Layer.effect(JobSignal, make)
