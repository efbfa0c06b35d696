/**
 * Asking the use case what it answers, without keeping what it writes: a body is decoded as the HTTP API
 * decodes it and upserted in a transaction that is then rolled back, so that thousands of bodies can be
 * tried against one written catalog, each against the same state.
 */
import { Cause, Data, Effect, Either, Option } from "effect"
import { CatalogService, type WriteResult } from "../Catalog/CatalogService.js"
import { decodeUpsert } from "../Catalog/Decode.js"
import type { ResourceName } from "../Resources/Resource.js"
import { Transactor } from "../Shared/Transactor.js"

/** What the use case answered: accepted with its result, or refused with the error's code and issue paths. */
export type Answer<A> =
  | { readonly _tag: "Accepted"; readonly value: A }
  | {
      readonly _tag: "Refused"
      /** The error's stable code, `error.code` in the API's error body. */
      readonly code: string
      /** The JSON paths of the error's issues (`details` of a 422), empty for errors without issues. */
      readonly paths: ReadonlyArray<string>
      /** `current_revision` of a revision conflict. */
      readonly currentRevision?: number | undefined
      /** The domain error itself (or the API's error body). */
      readonly error: unknown
    }

const hasCode = (
  error: unknown
): error is { readonly code: string; readonly issues?: ReadonlyArray<{ path: string }> } =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"

/** An answer from a domain error (anything with a `code`): a defect or another failure is not an answer. */
export const refused = (error: unknown): Answer<never> => {
  if (!hasCode(error)) throw new Error(`not a domain error: ${String(error)}`)
  const current = (error as { readonly current_revision?: unknown }).current_revision
  return {
    _tag: "Refused",
    code: error.code,
    paths: (error.issues ?? []).map((issue) => issue.path),
    ...(typeof current === "number" ? { currentRevision: current } : {}),
    error
  }
}

/** Runs `effect` and answers what it answered; a defect stays a defect (a 500 is never an answer). */
export const answer = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Answer<A>, never, R> =>
  Effect.matchCauseEffect(effect, {
    onSuccess: (value) => Effect.succeed({ _tag: "Accepted", value } as const),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onNone: () => Effect.failCause(cause as Cause.Cause<never>),
        onSome: (error) =>
          hasCode(error) ? Effect.succeed(refused(error)) : Effect.failCause(cause as Cause.Cause<never>)
      })
  })

class Rollback extends Data.TaggedError("KitRollback")<{ readonly result: WriteResult }> {}

/**
 * Decodes `body` strictly (as the HTTP API does) and upserts it as the current principal, then rolls the
 * write back: the answer the use case gives, and the state as it was.
 */
export const tryUpsert = (resource: ResourceName, body: unknown) =>
  Effect.gen(function* () {
    const decoded = decodeUpsert(resource, body)
    if (Either.isLeft(decoded)) return refused(decoded.left)
    const catalog = yield* CatalogService
    const transactor = yield* Transactor
    return yield* answer(
      transactor
        .withTransaction(
          Effect.flatMap(catalog.upsert(resource, decoded.right), (result) => Effect.fail(new Rollback({ result })))
        )
        .pipe(Effect.catchTag("KitRollback", (rollback) => Effect.succeed(rollback.result)))
    )
  })

/** Decodes and upserts `body` as the current principal, keeping the write. */
export const upsert = (resource: ResourceName, body: unknown) =>
  Effect.gen(function* () {
    const decoded = decodeUpsert(resource, body)
    if (Either.isLeft(decoded)) return refused(decoded.left)
    const catalog = yield* CatalogService
    return yield* answer(catalog.upsert(resource, decoded.right))
  })
