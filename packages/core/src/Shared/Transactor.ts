import { Context, type Effect } from "effect"
import type { PersistenceError } from "./Errors.js"

/**
 * The transaction boundary. Everything a use case writes inside `withTransaction` commits together or
 * not at all; a failure (or defect) rolls all of it back. Nested in another, it rolls back only its own
 * part (a savepoint): for a caller that carries on after the failure, e.g. an import's failed record.
 * `atomically` joins an open transaction instead, for a write whose failure fails its caller's
 * transaction too, so no savepoint is spent on it; with none open it is `withTransaction`.
 */
export class Transactor extends Context.Service<
  Transactor,
  {
    readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PersistenceError, R>
    readonly atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PersistenceError, R>
  }
>()("@catalog-sync/core/Transactor") {}
