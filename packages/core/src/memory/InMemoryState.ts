import { Context, Effect, Semaphore } from "effect"
import type { Mapping, MappingScope } from "../Catalog/Mappings.js"
import type { StoredRecord } from "../Catalog/StoredRecord.js"
import type { ChangeEntry } from "../Changes/ChangeLog.js"
import { Transactor } from "../Shared/Transactor.js"

/** What the in-memory catalog ports (records, mappings, change log) hold, shared by all of them. */
export interface State {
  records: Map<string, StoredRecord>
  mappings: Map<string, Mapping>
  changes: Array<ChangeEntry>
  /**
   * The length of `changes` when the open transaction began (transactions are serialised): readers
   * outside it see the changes before it only, as they would see committed rows only in a database, so
   * that no reader is handed a head that a rollback takes back.
   */
  openFrom: number | undefined
  /**
   * Whether the current fiber runs inside the open transaction (which sees its own changes). A reference
   * of this state only (its key is unique), so that separate states never see each other's transactions.
   */
  readonly inTransaction: Context.Reference<boolean>
}

let states = 0

export const emptyState = (): State => ({
  records: new Map(),
  mappings: new Map(),
  changes: [],
  openFrom: undefined,
  inTransaction: Context.Reference(`@catalog-sync/core/memory/InMemoryState/inTransaction/${++states}`, {
    defaultValue: () => false
  })
})

/** How many of `changes` the current fiber may see: all inside the open transaction, the committed ones outside. */
export const visibleChanges = (state: State): Effect.Effect<number> =>
  Effect.map(state.inTransaction, (inside) =>
    inside || state.openFrom === undefined ? state.changes.length : state.openFrom
  )

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
    const lock = yield* Semaphore.make(1)
    const inTransaction = state.inTransaction

    // A failure restores the state from before the (possibly nested) transaction: nested ones act as
    // savepoints, as sql.withTransaction makes them, so a batch can roll back one record's write only.
    const restoringOnFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const snapshot: Pick<State, "records" | "mappings" | "changes"> = {
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

    const withTransaction: Transactor["Service"]["withTransaction"] = (effect) =>
      Effect.flatMap(inTransaction, (nested) =>
        nested
          ? restoringOnFailure(effect)
          : lock.withPermits(1)(
              Effect.suspend(() => {
                state.openFrom = state.changes.length
                return restoringOnFailure(Effect.provideService(effect, inTransaction, true)).pipe(
                  Effect.ensuring(Effect.sync(() => void (state.openFrom = undefined)))
                )
              })
            )
      )
    return Transactor.of({
      withTransaction,
      atomically: (effect) => Effect.flatMap(inTransaction, (nested) => (nested ? effect : withTransaction(effect)))
    })
  })
