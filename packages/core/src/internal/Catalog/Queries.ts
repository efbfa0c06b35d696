import { Effect, Option } from "effect"
import { CurrentPrincipal } from "../../Auth/Principal.js"
import * as ChangeCursor from "../../Changes/ChangeCursor.js"
import { ChangeLog } from "../../Changes/ChangeLog.js"
import { definitions } from "../../Resources/Registry.js"
import type { ResourceName } from "../../Resources/Resource.js"
import { RecordNotFound } from "../../Shared/Errors.js"
import type { RecordId } from "../../Shared/Ids.js"
import type { ReadMode } from "./Access.js"
import { CatalogRepository, type ListQuery } from "../../Catalog/CatalogRepository.js"
import { readScope, requireScopes } from "./Caller.js"
import { type RecordView, recordJson, recordView } from "../../Catalog/RecordView.js"
import type { StoredRecord } from "../../Catalog/StoredRecord.js"
import type { Principal } from "../../Auth/Principal.js"

/** A page of a catalog list. */
export interface Page<Name extends ResourceName = ResourceName, Mode extends ReadMode = ReadMode> {
  /** On the first page only: where to start the change feed so that nothing after this list is missed. */
  readonly change_cursor?: string
  readonly records: ReadonlyArray<RecordView<Name, Mode>>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** A page of a catalog list, its records as the text of one JSON array (each record's `recordJson`). */
export interface PageJson extends Omit<Page, "records"> {
  readonly records: string
}

/** A catalog list's filters, page and read mode. */
export interface ListParams<Mode extends ReadMode = ReadMode> extends Omit<
  ListQuery,
  "externalId" | "includeArchived"
> {
  readonly externalId?: string | undefined
  /** catalog when omitted. */
  readonly mode?: Mode | undefined
}

/** A record's text as `getJson` last gave it: what a catalog view depends on besides the record. */
interface AnsweredRecord {
  readonly externalId: string | null
  readonly seePrices: boolean
  readonly seeCosts: boolean
  readonly taxModel: string
  readonly json: string
}

/** The catalog's reads: one record by id (GET /{resource}/{id}) and cursor pages (GET /{resource}). */
export const makeQueries = Effect.gen(function* () {
  const repository = yield* CatalogRepository
  const changeLog = yield* ChangeLog

  /** One record by id, rendered by `render`; archived products are returned with state archived. */
  const read = <Name extends ResourceName, A>(
    resource: Name,
    id: RecordId,
    render: (record: StoredRecord, externalId: string | null, principal: Principal) => A
  ) =>
    // Combinators rather than a generator: the read every connector repeats most takes the fewest steps.
    Effect.flatMap(CurrentPrincipal, (principal) =>
      Effect.andThen(
        requireScopes(principal, ["catalog:read"]),
        Effect.flatMap(repository.getMapped(principal.company.id, resource, id, principal.connectionId), (stored) =>
          Option.isNone(stored)
            ? Effect.fail(
                new RecordNotFound({ resource, message: `no ${definitions[resource].label} ${id} in this company` })
              )
            : Effect.succeed(render(stored.value.record, stored.value.externalId, principal))
        )
      )
    )

  /** One record by id; archived products are returned with state archived. */
  const get = <Name extends ResourceName>(resource: Name, id: RecordId) =>
    read(resource, id, (record, externalId, principal) =>
      recordView(resource, record, externalId, principal, "catalog")
    )

  /**
   * The last catalog-mode text of each record, with what it was made for: a record kept in memory until the
   * next commit (the SQL adapters' KeptReads, by id and by page) is the same object at every read, read
   * again and again by the few callers that sync it.
   */
  const answered = new WeakMap<StoredRecord, AnsweredRecord>()
  const jsonOf = (
    resource: ResourceName,
    record: StoredRecord,
    externalId: string | null,
    principal: Principal,
    mode: ReadMode
  ): string => {
    if (mode !== "catalog") return recordJson(definitions[resource], record, externalId, principal, mode)
    const seePrices = principal.scopes.has("prices:read")
    const seeCosts = principal.scopes.has("costs:read")
    const taxModel = principal.company.tax_model
    const last = answered.get(record)
    if (
      last !== undefined &&
      last.externalId === externalId &&
      last.seePrices === seePrices &&
      last.seeCosts === seeCosts &&
      last.taxModel === taxModel
    )
      return last.json
    const json = recordJson(definitions[resource], record, externalId, principal, mode)
    answered.set(record, { externalId, seePrices, seeCosts, taxModel, json })
    return json
  }

  /** `get`, the record as JSON text (`recordJson`). */
  const getJson = (resource: ResourceName, id: RecordId) =>
    read(resource, id, (record, externalId, principal) => jsonOf(resource, record, externalId, principal, "catalog"))

  /** A cursor page in id order, its records rendered by `render`; archived products are left out. */
  const readPage = <Name extends ResourceName, Mode extends ReadMode, A>(
    resource: Name,
    params: ListParams<Mode>,
    render: (record: StoredRecord, externalId: string | null, principal: Principal, mode: Mode | "catalog") => A
  ) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const mode = params.mode ?? ("catalog" as const)
      yield* requireScopes(principal, [readScope(mode)])
      // Taken before the list is read, so a change racing with the read is in the feed after it.
      const changeCursor =
        params.cursor === undefined ? ChangeCursor.encode(yield* changeLog.head(principal.company.id)) : undefined
      const rows = yield* repository.listMapped(
        principal.company.id,
        resource,
        {
          limit: params.limit + 1,
          cursor: params.cursor,
          externalId:
            params.externalId === undefined
              ? undefined
              : { connectionId: principal.connectionId, value: params.externalId },
          categoryId: params.categoryId,
          collectionId: params.collectionId,
          brandId: params.brandId,
          active: params.active
        },
        principal.connectionId
      )
      const page = rows.slice(0, params.limit)
      const hasMore = rows.length > params.limit
      return {
        ...(changeCursor === undefined ? {} : { change_cursor: changeCursor }),
        records: page.map((r) => render(r.record, r.externalId, principal, mode)),
        next_cursor: hasMore ? page[page.length - 1]!.record.id : null,
        has_more: hasMore
      }
    })

  /** A cursor page in id order; archived products are left out. */
  const list = <Name extends ResourceName, Mode extends ReadMode = "catalog">(
    resource: Name,
    params: ListParams<Mode>
  ) =>
    Effect.map(
      readPage(resource, params, (record, externalId, principal, mode) =>
        recordView(resource, record, externalId, principal, mode)
      ),
      (page) => page satisfies Page<Name, Mode | "catalog">
    )

  /** `list`, its records as one JSON array's text (`recordJson`). */
  const listJson = (resource: ResourceName, params: ListParams) =>
    Effect.map(
      readPage(resource, params, (record, externalId, principal, mode) =>
        jsonOf(resource, record, externalId, principal, mode)
      ),
      (page): PageJson => ({ ...page, records: `[${page.records.join(",")}]` })
    )

  return { get, getJson, list, listJson } as const
})
