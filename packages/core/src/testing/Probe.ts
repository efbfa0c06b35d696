/**
 * Asking the use case what it answers, without keeping what it writes: a body is decoded as the HTTP API
 * decodes it and upserted in a transaction that is then rolled back, so that thousands of bodies can be
 * tried against one written catalog, each against the same state.
 */
import { Cause, Data, Effect, Option, Result } from "effect"
import { CatalogService } from "../Catalog/CatalogService.js"
import { decodeStrict, decodeUpsert } from "../Catalog/Decode.js"
import { StockWrite } from "../Inventory/Inventory.js"
import { InventoryService } from "../Inventory/InventoryService.js"
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
      Option.match(Cause.findErrorOption(cause), {
        onNone: () => Effect.failCause(cause as Cause.Cause<never>),
        onSome: (error) =>
          hasCode(error) ? Effect.succeed(refused(error)) : Effect.failCause(cause as Cause.Cause<never>)
      })
  })

class Rollback<A> extends Data.TaggedError("KitRollback")<{ readonly result: A }> {}

/**
 * Runs `effect` in a transaction that is rolled back after it succeeds: its result, and the state as it
 * was (a failure rolls back anyway). With `answer`, tries a write of your own against a written catalog.
 */
export const rolledBack = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor
      .withTransaction(Effect.flatMap(effect, (result) => Effect.fail(new Rollback({ result }))))
      .pipe(Effect.catchTag("KitRollback", (rollback) => Effect.succeed((rollback as Rollback<A>).result)))
  )

/**
 * Decodes `body` strictly (as the HTTP API does) and upserts it as the current principal, then rolls the
 * write back: the answer the use case gives, and the state as it was.
 */
export const tryUpsert = (resource: ResourceName, body: unknown) =>
  Effect.gen(function* () {
    const decoded = decodeUpsert(resource, body)
    if (Result.isFailure(decoded)) return refused(decoded.failure)
    const catalog = yield* CatalogService
    return yield* answer(rolledBack(catalog.upsert(resource, decoded.success)))
  })

/** Decodes a POST /inventory body strictly and writes it as the current principal, then rolls the write back. */
export const tryStockWrite = (body: unknown) =>
  Effect.gen(function* () {
    const decoded = decodeStrict(StockWrite, body, "the stock write")
    if (Result.isFailure(decoded)) return refused(decoded.failure)
    const inventory = yield* InventoryService
    return yield* answer(rolledBack(inventory.write(decoded.success)))
  })

/** Decodes and upserts `body` as the current principal, keeping the write. */
export const upsert = (resource: ResourceName, body: unknown) =>
  Effect.gen(function* () {
    const decoded = decodeUpsert(resource, body)
    if (Result.isFailure(decoded)) return refused(decoded.failure)
    const catalog = yield* CatalogService
    return yield* answer(catalog.upsert(resource, decoded.success))
  })

let answered = 0

/**
 * Every few calls, lets the event loop run its timers and I/O. An answer from a synchronous database
 * (SQLite) needs no macrotask, and thousands in a row would starve the test runner's own messages.
 */
export const breathe = (): Promise<void> =>
  ++answered % 20 === 0 ? new Promise((resolve) => setTimeout(resolve, 0)) : Promise.resolve()
