import { Effect, type Scope } from "effect"

/**
 * A write as a use case hands it to the write runner: the checks that need no database, the work, and
 * what follows a commit. A use case that offers a command also offers a direct method for callers
 * without idempotency (embedders), which authorizes and runs it.
 */
export interface WriteCommand<A, E, R> {
  /** Scopes and mode rules: checked on every attempt, also one whose stored answer will be replayed. */
  readonly authorize: Effect.Effect<void, E, R>
  /**
   * Taken after `authorize` and before anything else, held until the write ends (its scope closes): a
   * bound on how many such writes run at once, refused before the write waits for a connection.
   */
  readonly admit?: Effect.Effect<void, E, R | Scope.Scope> | undefined
  /** The use case's work; the runner runs it in one transaction with the Idempotency-Key's stored answer. */
  readonly run: Effect.Effect<A, E, R>
  /** Once the write committed (not on a replay): e.g. wake an idle job worker for the job it queued. */
  readonly afterCommit?: Effect.Effect<void> | undefined
  /** When `run` never started (a replay, a refusal before it): e.g. remove an upload staged for it. */
  readonly unused?: Effect.Effect<void> | undefined
}

/** A command from its parts, with the error and requirement types of both (TypeScript infers one from the first only). */
export const command = <A, E1, R1, E2, R2, E3 = never, R3 = never>(parts: {
  readonly authorize: Effect.Effect<void, E1, R1>
  readonly admit?: Effect.Effect<void, E3, R3> | undefined
  readonly run: Effect.Effect<A, E2, R2>
  readonly afterCommit?: Effect.Effect<void> | undefined
  readonly unused?: Effect.Effect<void> | undefined
}): WriteCommand<A, E1 | E2 | E3, R1 | R2 | R3> => parts

/** The same command answering `f` of its result (an envelope of the result, say). */
export const map = <A, B, E, R>(self: WriteCommand<A, E, R>, f: (a: A) => B): WriteCommand<B, E, R> => ({
  ...self,
  run: Effect.map(self.run, f)
})

/** Runs a command without idempotency: authorize, run, then its after-commit effect. */
export const runDirect = <A, E, R>(command: WriteCommand<A, E, R>): Effect.Effect<A, E, Exclude<R, Scope.Scope>> =>
  Effect.scoped(
    Effect.gen(function* () {
      const admitted = yield* Effect.result(Effect.andThen(command.authorize, admit(command)))
      if (admitted._tag === "Failure") {
        if (command.unused !== undefined) yield* command.unused
        return yield* Effect.fail(admitted.failure)
      }
      const result = yield* command.run
      if (command.afterCommit !== undefined) yield* command.afterCommit
      return result
    })
  )

/** The command's admission, or none. */
export const admit = <A, E, R>(command: WriteCommand<A, E, R>): Effect.Effect<void, E, R | Scope.Scope> =>
  command.admit ?? Effect.void
