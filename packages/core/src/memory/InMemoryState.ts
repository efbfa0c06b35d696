import { Effect, FiberRef } from "effect"
import type { Mapping, MappingScope } from "../Catalog/Mappings.js"
import type { StoredRecord } from "../Catalog/StoredRecord.js"
import type { ChangeEntry } from "../Changes/ChangeLog.js"
import { Transactor } from "../Shared/Transactor.js"

/** What the in-memory catalog ports (records, mappings, change log) hold, shared by all of them. */
export interface State {
  records: Map<string, StoredRecord>
  mappings: Map<string, Mapping>
  changes: Array<ChangeEntry>
}

export const emptyState = (): State => ({ records: new Map(), mappings: new Map(), changes: [] })

export const recordKey = (companyId: string, resource: string, id: string) => `${companyId}|${resource}|${id}`
export const scopeKey = (scope: MappingScope) => `${scope.companyId}|${scope.connectionId}|${scope.resource}`
export const byExternal = (scope: MappingScope, externalId: string) => `${scopeKey(scope)}|e|${externalId}`
export const byRecord = (scope: MappingScope, recordId: string) => `${scopeKey(scope)}|r|${recordId}`

/** Id order, as the SQL stores page records. */
export const byId = (a: { readonly id: string }, b: { readonly id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The in-memory transactor over `state`: transactions are serialised and restore a snapshot of the
 * state on failure.
 */
export const makeTransactor = (state: State) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    const inTransaction = FiberRef.unsafeMake(false)

    // A failure restores the state from before the (possibly nested) transaction: nested ones act as
    // savepoints, as sql.withTransaction makes them, so a batch can roll back one record's write only.
    const restoringOnFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const snapshot: State = {
          records: new Map(state.records),
          mappings: new Map(state.mappings),
          changes: [...state.changes]
        }
        return effect.pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (exit._tag === "Failure") Object.assign(state, snapshot)
            })
          )
        )
      })

    const withTransaction: Transactor["Type"]["withTransaction"] = (effect) =>
      Effect.flatMap(FiberRef.get(inTransaction), (nested) =>
        nested
          ? restoringOnFailure(effect)
          : lock.withPermits(1)(restoringOnFailure(Effect.locally(effect, inTransaction, true)))
      )
    return Transactor.of({
      withTransaction,
      atomically: (effect) =>
        Effect.flatMap(FiberRef.get(inTransaction), (nested) => (nested ? effect : withTransaction(effect)))
    })
  })
