import type { ChangeLog, Errors } from "@catalog-sync/core"
import { Context, Effect } from "effect"

/**
 * The change entries appended inside a transaction, not yet written. One company's writes wait for each
 * other from the statement that draws their positions (on PostgreSQL it moves the company's
 * `change_heads` row) to COMMIT, so the entries are written together as the transaction's last statement:
 * at a distance from the database, the company's lock is then held for that statement and the COMMIT only.
 */
export interface PendingChanges {
  readonly entries: Array<ChangeLog.ChangeEntry>
  /** How the entries are written: set by the change log that kept them. */
  write: ((entries: ReadonlyArray<ChangeLog.ChangeEntry>) => Effect.Effect<void, Errors.PersistenceError>) | undefined
}

/**
 * The pending changes of the transaction the fiber runs in, provided by `inTransaction` to its body;
 * undefined outside one, and in a transaction opened otherwise (the entries are then written at once). A
 * savepoint must be opened through it too (the `Transactor`), so that its entries are dropped with it: one
 * opened with `sql.withTransaction` directly inside would leave its rolled-back appends pending.
 */
export const CurrentPendingChanges = Context.Reference<PendingChanges | undefined>(
  "@catalog-sync/adapter-sql/CurrentPendingChanges",
  { defaultValue: () => undefined }
)

export const emptyPendingChanges = (): PendingChanges => ({ entries: [], write: undefined })

/**
 * Writes the pending entries now, in their order, and takes them off the list once written: a failed
 * write leaves them pending, so a caller that carries on (SQLite keeps the transaction open after a
 * failed statement) still writes them before COMMIT.
 */
export const writePending = (pending: PendingChanges): Effect.Effect<void, Errors.PersistenceError> =>
  Effect.suspend(() => {
    if (pending.entries.length === 0 || pending.write === undefined) return Effect.void
    const entries = pending.entries.slice()
    return Effect.tap(pending.write(entries), () => Effect.sync(() => void pending.entries.splice(0, entries.length)))
  })

/** A savepoint's entries, once it is released, belong to the enclosing transaction's. */
export const handOver = (from: PendingChanges, to: PendingChanges): void => {
  if (from.entries.length === 0) return
  to.entries.push(...from.entries.splice(0))
  to.write ??= from.write
}
