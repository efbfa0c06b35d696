import { Context, type Effect } from "effect"
import type { PersistenceError } from "./Errors.js"

/**
 * The transaction boundary. Everything a use case writes inside `withTransaction` commits together or
 * not at all; a failure (or defect) rolls all of it back.
 */
export class Transactor extends Context.Tag("@catalog-sync/core/Transactor")<
  Transactor,
  {
    readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PersistenceError, R>
  }
>() {}
