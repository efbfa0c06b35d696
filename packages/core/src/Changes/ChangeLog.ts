import { Context, type Effect } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import type { Scope } from "../Shared/Scope.js"

/** What a change did to its record. */
export type ChangeOperation = "created" | "updated" | "archived"

/** Which kinds of data a change touched; a reader sees a change when it may read one of them. */
export type ChangePart = "catalog" | "prices" | "costs" | "stock" | "media"

/** The read scope that shows each part. */
export const partScopes: Readonly<Record<ChangePart, Scope>> = {
  catalog: "catalog:read",
  prices: "prices:read",
  costs: "costs:read",
  stock: "stock:read",
  media: "media:read"
}

const bits: Readonly<Record<ChangePart, number>> = { catalog: 1, prices: 2, costs: 4, stock: 8, media: 16 }

/** The parts as a bit mask, as stored, so that the feed can filter by scope inside the query. */
export const maskOf = (parts: ReadonlyArray<ChangePart>): number => parts.reduce((mask, part) => mask | bits[part], 0)

/** The bit mask of the parts the given scopes may read. */
export const readableMask = (scopes: ReadonlySet<Scope>): number =>
  (Object.keys(partScopes) as Array<ChangePart>).reduce(
    (mask, part) => (scopes.has(partScopes[part]) ? mask | bits[part] : mask),
    0
  )

/** One committed change of a record, appended in the same transaction as the write itself. */
export interface ChangeEntry {
  readonly companyId: CompanyId
  readonly resource: string
  readonly recordId: RecordId
  readonly revision: number
  readonly operation: ChangeOperation
  readonly originConnectionId: ConnectionId
  readonly at: string
  /** What the change touched; a catalog change when omitted (stock for inventory, media for media). */
  readonly parts?: ReadonlyArray<ChangePart>
}

/** The parts of an entry, with the defaults of each resource. */
export const partsOf = (entry: ChangeEntry): ReadonlyArray<ChangePart> =>
  entry.parts ?? (entry.resource === "inventory" ? ["stock"] : entry.resource === "media" ? ["media"] : ["catalog"])

/** A change as the feed reads it back: its position in the company's sequence and the reader's external id of the record. */
export interface LoggedChange extends Omit<ChangeEntry, "parts"> {
  readonly position: number
  /** The external id of the record in the reader's connection, when it has a mapping. */
  readonly externalId: string | null
}

/** A read of one company's change log. */
export interface ChangeQuery {
  readonly companyId: CompanyId
  /** Whose mappings provide `externalId`. */
  readonly connectionId: ConnectionId
  /** Changes strictly after this position... */
  readonly after: number
  /** ...and at most up to this one (the head read before the query). */
  readonly upTo: number
  /** Only changes touching one of these parts (bit mask, see maskOf). */
  readonly visibleMask: number
  readonly resources?: ReadonlyArray<string> | undefined
  readonly limit: number
}

/**
 * Append-only log of committed changes, read by the change feed. Each company's changes are numbered by
 * the company's own sequence (1, 2, 3...), so that a company's positions say nothing about another
 * company's writes. They grow in commit order: a change with a higher position is never visible before a
 * lower one of the same company (on PostgreSQL the append holds the company's head row until commit; on
 * SQLite writers are serial).
 */
export class ChangeLog extends Context.Service<
  ChangeLog,
  {
    readonly append: (entry: ChangeEntry) => Effect.Effect<void, PersistenceError>
    /** Appends entries in their order, as `append` one by one would, in as few statements as the engine allows. */
    readonly appendMany: (entries: ReadonlyArray<ChangeEntry>) => Effect.Effect<void, PersistenceError>
    /** The position of the company's latest committed change, 0 when it has none. */
    readonly head: (companyId: CompanyId) => Effect.Effect<number, PersistenceError>
    /** Changes after `after` up to `upTo`, in position order, at most `limit`. */
    readonly read: (query: ChangeQuery) => Effect.Effect<ReadonlyArray<LoggedChange>, PersistenceError>
    /**
     * The company's position that a position of the former global sequence stands for (the one sequence
     * that numbered every company's changes before positions were per company, what `c1_` cursors carry):
     * the position of the company's last change numbered at or before it, 0 when none. Changes appended
     * since carry no global number.
     */
    readonly fromGlobalPosition: (
      companyId: CompanyId,
      globalPosition: number
    ) => Effect.Effect<number, PersistenceError>
  }
>()("@catalog-sync/core/ChangeLog") {}
