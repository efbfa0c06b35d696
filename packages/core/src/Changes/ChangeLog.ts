import { Context, type Effect } from "effect"
import type { PersistenceError } from "../Catalog/CatalogErrors.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"

export type ChangeOperation = "created" | "updated" | "archived"

/** One committed change of a record, appended in the same transaction as the write itself. */
export interface ChangeEntry {
  readonly companyId: CompanyId
  readonly resource: string
  readonly recordId: RecordId
  readonly revision: number
  readonly operation: ChangeOperation
  readonly originConnectionId: ConnectionId
  readonly at: string
}

/** Append-only log of committed changes; the change feed reads it. */
export class ChangeLog extends Context.Tag("@catalog-sync/core/ChangeLog")<
  ChangeLog,
  {
    readonly append: (entry: ChangeEntry) => Effect.Effect<void, PersistenceError>
    /**
     * An opaque cursor at the company's latest committed change: a reader that starts the feed there
     * sees every change committed after this call.
     */
    readonly cursor: (companyId: CompanyId) => Effect.Effect<string, PersistenceError>
  }
>() {}
