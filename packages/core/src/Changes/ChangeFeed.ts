import { Context, Effect, Layer, Schema } from "effect"
import { CurrentPrincipal } from "../Auth/Principal.js"
import { Int } from "../Resources/CommonFields.js"
import { ScopeDenied } from "../Shared/Errors.js"
import { UUID } from "../Shared/Ids.js"
import * as ChangeCursor from "./ChangeCursor.js"
import { ChangeLog, partScopes, readableMask } from "./ChangeLog.js"

/** A change as GET /changes returns it. */
export const Change = Schema.Struct({
  resource: Schema.String,
  id: UUID.annotate({ description: "The record (or stock card) that changed." }),
  external_id: Schema.NullOr(Schema.String).annotate({
    description: "The record's external id in the reader's connection, null when it has none."
  }),
  revision: Int,
  operation: Schema.Literals(["created", "updated", "archived"]),
  origin_connection_id: UUID.annotate({
    description: "Skip your own connection's changes (echo suppression)."
  }),
  at: Schema.String
}).annotate({ identifier: "Change" })
export type Change = typeof Change.Type

/** Where a feed read starts and how many changes it returns at most. */
export interface FeedParams {
  readonly cursor?: string | undefined
  readonly limit: number
  readonly resources?: ReadonlyArray<string> | undefined
}

/** A page of the change feed. */
export interface FeedPage {
  readonly records: ReadonlyArray<Change>
  /** Always present, also on an empty page: persist it after every call. */
  readonly next_cursor: string
  readonly has_more: boolean
}

/**
 * The change feed: every committed change of the caller's company after a cursor, exactly once, in
 * commit order, limited to what the key may read. Changes the key may not see still advance the cursor.
 */
export class ChangeFeed extends Context.Service<ChangeFeed>()("@catalog-sync/core/ChangeFeed", {
  make: Effect.gen(function* () {
    const log = yield* ChangeLog

    const read = (params: FeedParams) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const visibleMask = readableMask(principal.scopes)
        if (visibleMask === 0) {
          return yield* new ScopeDenied({
            message:
              "reading the change feed needs a read scope (catalog:read, prices:read, costs:read, stock:read or media:read)",
            required: [partScopes.catalog]
          })
        }
        const cursor =
          params.cursor === undefined ? undefined : yield* ChangeCursor.decode(params.cursor, "query.cursor")
        // A cursor of the former global sequence (`c1_`, saved before positions were per company) is
        // read as the company's place in it.
        const after =
          cursor === undefined
            ? 0
            : cursor.global && cursor.position > 0
              ? yield* log.fromGlobalPosition(principal.company.id, cursor.position)
              : cursor.position
        // The head bounds the page: everything up to it is committed, so the cursor can move to it even
        // when none of those changes is visible to this key.
        const head = yield* log.head(principal.company.id)
        // Every cursor handed out is a head read earlier, and the head only grows (committed positions are
        // never taken back), so one past it was never handed to this company: another company's, or forged.
        // Answering it an empty page would hand it back, and the reader would skip the changes up to it.
        if (after > head) return yield* ChangeCursor.invalid("query.cursor")
        const rows =
          after === head
            ? []
            : yield* log.read({
                companyId: principal.company.id,
                connectionId: principal.connectionId,
                after,
                upTo: head,
                visibleMask,
                // A name repeated in `resource=` filters once (each length of list would be a query of its own).
                resources: params.resources === undefined ? undefined : Array.from(new Set(params.resources)),
                limit: params.limit + 1
              })
        const hasMore = rows.length > params.limit
        const page = rows.slice(0, params.limit)
        const last = hasMore ? page[page.length - 1]!.position : head
        return {
          records: page.map((row) => ({
            resource: row.resource,
            id: row.recordId,
            external_id: row.externalId,
            revision: row.revision,
            operation: row.operation,
            origin_connection_id: row.originConnectionId,
            at: row.at
          })),
          next_cursor: ChangeCursor.encode(last),
          has_more: hasMore
        } satisfies FeedPage
      })

    return { read } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
