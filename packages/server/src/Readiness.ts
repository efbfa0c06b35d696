import { Effect, Ref } from "effect"

/**
 * The readiness probe with its changes logged, not every answer (load balancers ask every few seconds):
 * the cause when the database stops answering, a line when it answers again.
 */
export const loggingChanges = <E extends { readonly message: string }>(probe: Effect.Effect<void, E>) =>
  Effect.map(Ref.make(true), (answering) =>
    probe.pipe(
      Effect.tapError((error) =>
        Effect.logWarning(`the database does not answer; GET /ready answers 503 until it does: ${error.message}`).pipe(
          Effect.when(Ref.getAndSet(answering, false))
        )
      ),
      Effect.tap(() =>
        Effect.logInfo("the database answers again; GET /ready answers 200").pipe(
          Effect.when(Effect.map(Ref.getAndSet(answering, true), (was) => !was))
        )
      )
    )
  )
