/**
 * The helpers a connector syncs with, built on the client's plain calls: paging through lists, the
 * initial export, following the change feed, and writes that settle revision conflicts (read-modify-write).
 */
import { type Duration, Effect, Option, Stream } from "effect"
import type {
  BodyOf,
  CatalogResource,
  Change,
  ChangesPage,
  ChangesQuery,
  ListPage,
  ListQuery,
  MeAnswer,
  RecordOf,
  WriteResult
} from "./Contract.js"
import { type ClientError, RevisionConflict } from "./Errors.js"

/** A page of any cursor-paged list. */
export interface Page<A> {
  readonly records: ReadonlyArray<A>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** Options of the client's `followChanges`. */
export interface FollowOptions<E, R> {
  /** Where to start: a persisted `next_cursor`, or a list's `change_cursor`; omitted, the company's history from its beginning. */
  readonly cursor?: string | undefined
  readonly resources?: ReadonlyArray<string>
  readonly limit?: number
  /** Handles the changes of one page, own changes already removed. Runs before the cursor is saved. */
  readonly onChanges: (changes: ReadonlyArray<Change>, page: ChangesPage) => Effect.Effect<void, E, R>
  /** Persists the page's `next_cursor`: called after every call, also for an empty (or fully filtered) page. */
  readonly saveCursor: (cursor: string) => Effect.Effect<void, E, R>
  /** Skip changes made by this key's own connection (echo suppression, default true). */
  readonly skipOwn?: boolean
  /** Stop once the feed is caught up (default), or keep polling every `pollInterval`. */
  readonly follow?: boolean
  readonly pollInterval?: Duration.Input
}

/** How to settle a revision conflict: the desired body against the stored record; `undefined` gives up. */
export type Resolve<R extends CatalogResource, E, Q> = (context: {
  readonly attempted: BodyOf<R>
  readonly current: RecordOf<R>
  readonly conflict: RevisionConflict
}) => Effect.Effect<BodyOf<R> | undefined, E, Q>

/** The client's calls the helpers build on. */
export interface Calls {
  readonly me: Effect.Effect<MeAnswer, ClientError>
  readonly list: <R extends CatalogResource>(
    resource: R,
    query?: ListQuery<R>
  ) => Effect.Effect<ListPage<R>, ClientError>
  readonly get: <R extends CatalogResource>(resource: R, id: string) => Effect.Effect<RecordOf<R>, ClientError>
  readonly findByExternalId: <R extends CatalogResource>(
    resource: R,
    externalId: string
  ) => Effect.Effect<Option.Option<RecordOf<R>>, ClientError>
  readonly upsert: <R extends CatalogResource>(
    resource: R,
    body: BodyOf<R>
  ) => Effect.Effect<WriteResult<R>, ClientError>
  readonly changes: (query?: ChangesQuery) => Effect.Effect<ChangesPage, ClientError>
}

/** The sync helpers of one client, over its `calls`. */
export const make = ({ changes, findByExternalId, get, list, me, upsert }: Calls) => {
  /** Pages through any cursor list: `fetch(cursor)` reads one page; the stream emits the pages in order. */
  const pages = <P extends Page<unknown>, E, Q>(
    fetch: (cursor: string | undefined) => Effect.Effect<P, E, Q>
  ): Stream.Stream<P, E, Q> =>
    Stream.paginate(undefined as string | undefined, (cursor) =>
      Effect.map(
        fetch(cursor),
        (page) =>
          [[page], page.has_more && page.next_cursor !== null ? Option.some(page.next_cursor) : Option.none()] as const
      )
    )

  /** Every record of a catalog list, page after page (limit 100 unless the query says otherwise). */
  const listAll = <R extends CatalogResource>(
    resource: R,
    query: ListQuery<R> = {}
  ): Stream.Stream<RecordOf<R>, ClientError> =>
    pages((cursor) => list(resource, { limit: 100, ...query, ...(cursor === undefined ? {} : { cursor }) })).pipe(
      Stream.map((page) => page.records),
      Stream.flattenIterable
    )

  /**
   * Initial export of a resource (sync flow, steps 1-2): pages the whole list and returns its records
   * with the first page's `change_cursor`, from which GET /changes misses nothing that happened meanwhile.
   */
  const exportAll = <R extends CatalogResource>(resource: R, query: ListQuery<R> = {}) =>
    Effect.gen(function* () {
      let changeCursor: string | undefined
      const records = yield* pages((cursor) =>
        list(resource, { limit: 100, ...query, ...(cursor === undefined ? {} : { cursor }) })
      ).pipe(
        Stream.tap((page) => Effect.sync(() => void (changeCursor ??= page.change_cursor))),
        Stream.map((page) => page.records),
        Stream.flattenIterable,
        Stream.runCollect
      )
      return { records: Array.from(records), changeCursor }
    })

  let ownConnection: string | undefined
  const ownConnectionId = Effect.suspend(() =>
    ownConnection === undefined
      ? Effect.map(me, (answer) => (ownConnection = answer.principal.connection_id))
      : Effect.succeed(ownConnection)
  )

  /**
   * Follows GET /changes from a cursor (sync flow, steps 3-5): hands each page's changes, without this
   * connection's own, to `onChanges`, then persists `next_cursor` through `saveCursor`, after every call.
   * Returns the last cursor once caught up (or never, with `follow: true`).
   */
  const followChanges = <E, R>(follow: FollowOptions<E, R>): Effect.Effect<string, ClientError | E, R> =>
    Effect.gen(function* () {
      const own = follow.skipOwn === false ? undefined : yield* ownConnectionId
      let cursor = follow.cursor ?? ""
      while (true) {
        const page = yield* changes({
          ...(cursor === "" ? {} : { cursor }),
          ...(follow.limit === undefined ? {} : { limit: follow.limit }),
          ...(follow.resources === undefined ? {} : { resource: follow.resources.join(",") })
        })
        yield* follow.onChanges(
          page.records.filter((change) => change.origin_connection_id !== own),
          page
        )
        yield* follow.saveCursor(page.next_cursor)
        cursor = page.next_cursor
        if (page.has_more) continue
        if (follow.follow !== true) return cursor
        yield* Effect.sleep(follow.pollInterval ?? "5 seconds")
      }
    })

  /**
   * Upserts `body`; on `revision_conflict` reads the stored record and asks `resolve` for the body to
   * send instead (its `expected_revision` is set to the stored revision). Each attempt is a new logical
   * write, so it gets a new Idempotency-Key. `resolve` returning `undefined` ends with the conflict.
   */
  const upsertResolving = <R extends CatalogResource, E = never, Q = never>(
    resource: R,
    body: BodyOf<R>,
    resolve: Resolve<R, E, Q>,
    options: { readonly maxAttempts?: number } = {}
  ): Effect.Effect<WriteResult<R>, ClientError | E, Q> =>
    Effect.gen(function* () {
      let attempted = body
      for (let attempt = 1; ; attempt++) {
        const result = yield* Effect.result(upsert(resource, attempted))
        if (result._tag === "Success") return result.success
        const conflict = result.failure
        if (!(conflict instanceof RevisionConflict) || attempt >= (options.maxAttempts ?? 5))
          return yield* Effect.fail(conflict)
        // A body that maps an existing record with target_id is not findable by its external_id yet.
        const targetId = (attempted as { target_id?: string }).target_id
        const current =
          targetId === undefined
            ? yield* findByExternalId(resource, (attempted as { external_id: string }).external_id)
            : Option.some(yield* get(resource, targetId))
        if (Option.isNone(current)) return yield* Effect.fail(conflict)
        const next = yield* resolve({ attempted, current: current.value, conflict })
        if (next === undefined) return yield* Effect.fail(conflict)
        attempted = { ...next, expected_revision: (current.value as { revision: number }).revision }
      }
    })

  /**
   * Read-modify-write of the record mapped to `externalId`: `modify` gets the stored record (`undefined`
   * when there is none yet) and returns the body to send; on `revision_conflict` the record is read
   * again and `modify` runs again on it, so `modify` is where the caller's merge policy lives.
   */
  const readModifyWrite = <R extends CatalogResource, E = never, Q = never>(
    resource: R,
    externalId: string,
    modify: (
      current: RecordOf<R> | undefined
    ) => Effect.Effect<Omit<BodyOf<R>, "external_id" | "expected_revision">, E, Q>,
    options: { readonly maxAttempts?: number } = {}
  ): Effect.Effect<WriteResult<R>, ClientError | E, Q> =>
    Effect.gen(function* () {
      const current = yield* findByExternalId(resource, externalId)
      const first = yield* modify(Option.getOrUndefined(current))
      const body = {
        ...first,
        external_id: externalId,
        expected_revision: Option.match(current, {
          onNone: () => 0,
          onSome: (record) => (record as { revision: number }).revision
        })
      } as BodyOf<R>
      return yield* upsertResolving(
        resource,
        body,
        ({ current }) => Effect.map(modify(current), (next) => ({ ...next, external_id: externalId })),
        options
      )
    })

  return { pages, listAll, exportAll, followChanges, upsertResolving, readModifyWrite }
}
