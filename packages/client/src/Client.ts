/**
 * The typed client: derived from the HttpApi contract of `@catalog-sync/adapter-http` with
 * `HttpApiClient.make`, wrapped in the client discipline (see Discipline.ts), with tagged errors
 * (see Errors.ts) and the helpers a connector needs: paging, following the change feed and
 * read-modify-write.
 */
import { Api } from "@catalog-sync/contract"
import type {
  Brand,
  Category,
  Collection,
  CustomizationGroup,
  CustomizationOption,
  CustomizationType,
  Import,
  Inventory,
  Product
} from "@catalog-sync/contract"
import { FetchHttpClient, HttpApiClient, type HttpClient, type HttpClientResponse } from "@effect/platform"
import { Context, type Duration, Effect, Layer, Option, Schedule, Stream } from "effect"
import { type CallTrace, currentCall, discipline, type DisciplineOptions } from "./Discipline.js"
import { type ClientError, fromRaw, RevisionConflict } from "./Errors.js"

/** How to reach the API and who is calling. */
export interface ClientOptions extends DisciplineOptions {
  /** The server's origin, e.g. `http://localhost:8080`; `/api/v1` is part of the contract's paths. */
  readonly baseUrl: string
}

/** The contract's client as `HttpApiClient.make` derives it: one method per endpoint, raw declared errors. */
export type RawClient = Effect.Effect.Success<ReturnType<typeof makeRaw>>

const makeRaw = (options: ClientOptions) =>
  HttpApiClient.make(Api, { baseUrl: options.baseUrl, transformClient: discipline(options) })

/** The catalog resources, by path name, and the contract group that serves each. */
export const catalogGroups = {
  products: "products",
  categories: "categories",
  collections: "collections",
  brands: "brands",
  "customization-types": "customizationTypes",
  "customization-groups": "customizationGroups",
  "customization-options": "customizationOptions"
} as const
/** The path name of a catalog resource (`products`, `categories`, ...). */
export type CatalogResource = keyof typeof catalogGroups

/**
 * Record and upsert body of each resource. The contract erases them (its groups are built generically
 * over core's resource definitions), so they are restored here from the very schemas the contract uses.
 */
export interface Schemas {
  products: { record: typeof Product.Product.Type; body: typeof Product.ProductUpsert.Encoded }
  categories: { record: typeof Category.Category.Type; body: typeof Category.CategoryUpsert.Encoded }
  collections: { record: typeof Collection.Collection.Type; body: typeof Collection.CollectionUpsert.Encoded }
  brands: { record: typeof Brand.Brand.Type; body: typeof Brand.BrandUpsert.Encoded }
  "customization-types": {
    record: typeof CustomizationType.CustomizationType.Type
    body: typeof CustomizationType.CustomizationTypeUpsert.Encoded
  }
  "customization-groups": {
    record: typeof CustomizationGroup.CustomizationGroup.Type
    body: typeof CustomizationGroup.CustomizationGroupUpsert.Encoded
  }
  "customization-options": {
    record: typeof CustomizationOption.CustomizationOption.Type
    body: typeof CustomizationOption.CustomizationOptionUpsert.Encoded
  }
}
/** A record of resource `R` as the API returns it. */
export type RecordOf<R extends CatalogResource> = Schemas[R]["record"]
/** The upsert body of resource `R`. */
export type BodyOf<R extends CatalogResource> = Schemas[R]["body"]

type Success<F> = F extends (...args: any) => Effect.Effect<infer A, any, any>
  ? Exclude<A, readonly [any, HttpClientResponse.HttpClientResponse]>
  : never
type Request<F> = F extends (request: infer Q) => any ? Q : never
type Group<R extends CatalogResource> = RawClient[(typeof catalogGroups)[R]]

/** Query of a catalog list (spec 4.1; products take more filters), as the contract declares it. */
export type ListQuery<R extends CatalogResource> = NonNullable<Request<Group<R>["list"]>["urlParams"]>
type RawListPage = Success<RawClient["products"]["list"]>
/** A page of a catalog list: `change_cursor` is on the first page only. */
export type ListPage<R extends CatalogResource> = Omit<RawListPage, "records"> & {
  readonly records: ReadonlyArray<RecordOf<R>>
}
/** A page of a `mode=prices` list: identity and the price fields the key may read. */
export type PriceListPage = RawListPage
/** What an upsert or archive of resource `R` answers: the outcome and the record. */
export type WriteResult<R extends CatalogResource> = Omit<Success<RawClient["products"]["upsert"]>, "record"> & {
  readonly record: RecordOf<R>
}
/** The answer of GET /me. */
export type MeAnswer = Success<RawClient["me"]["me"]>
/** The caller as `GET /me` describes it: company, connection and scopes. */
export type Principal = MeAnswer["principal"]
/** The query of `GET /changes`. */
export type ChangesQuery = NonNullable<Request<RawClient["changes"]["changes"]>["urlParams"]>
/** A page of the change feed. */
export type ChangesPage = Success<RawClient["changes"]["changes"]>
/** One change of the feed. */
export type Change = ChangesPage["records"][number]
/** The query of `GET /inventory`. */
export type InventoryQuery = NonNullable<Request<RawClient["inventory"]["list"]>["urlParams"]>
/** A page of stock cards. */
export type InventoryPage = Success<RawClient["inventory"]["list"]>
/** What `POST /inventory` answers. */
export type StockWriteResult = Success<RawClient["inventory"]["write"]>
/** The body of `POST /inventory`. */
export type StockWrite = typeof Inventory.StockWrite.Encoded
/** The query of `GET /jobs`. */
export type JobsQuery = NonNullable<Request<RawClient["jobs"]["list"]>["urlParams"]>
/** The query of `GET /media`. */
export type MediaQuery = NonNullable<Request<RawClient["media"]["list"]>["urlParams"]>

/** The fields of a media upload besides the file; `purpose` defaults to catalog on the server. */
export interface MediaFields {
  readonly external_id: string
  readonly name: string
  readonly purpose?: "catalog" | "option" | undefined
}

/** Options of one logical write. */
export interface WriteOptions {
  /**
   * The write's Idempotency-Key. Omitted, a fresh one is made; it is reused on every automatic retry.
   * Pass your own to make a write safe to repeat across process restarts (e.g. derived from a source event id).
   */
  readonly idempotencyKey?: string
}

/** A page of any cursor-paged list. */
export interface Page<A> {
  readonly records: ReadonlyArray<A>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** Options of a {@link Client}'s `followChanges`. */
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
  readonly pollInterval?: Duration.DurationInput
}

/** How to settle a revision conflict: the desired body against the stored record; `undefined` gives up. */
export type Resolve<R extends CatalogResource, E, Q> = (context: {
  readonly attempted: BodyOf<R>
  readonly current: RecordOf<R>
  readonly conflict: RevisionConflict
}) => Effect.Effect<BodyOf<R> | undefined, E, Q>

/** The body of POST /imports. */
export type ImportBody = Import.ImportBody

const freshKey = () => globalThis.crypto.randomUUID()

/** Makes the client; needs an `HttpClient` (see {@link layer} for one over fetch). */
export const make = (options: ClientOptions) =>
  Effect.gen(function* () {
    const raw = yield* makeRaw(options)
    const call = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<A, ClientError> =>
      Effect.suspend(() => {
        const trace: CallTrace = { sent: false }
        return effect.pipe(
          Effect.mapError((error) => fromRaw(error, trace)),
          Effect.locally(currentCall, trace)
        )
      })
    // The generic group lookup loses the per-group method types; each method below restores them.
    const group = (resource: CatalogResource) => raw[catalogGroups[resource]] as unknown as RawClient["products"]

    /** GET /me: `{ request_id, principal }`, as the API answers. */
    const me: Effect.Effect<MeAnswer, ClientError> = call(raw.me.me({ withResponse: false }))

    const list = <R extends CatalogResource>(
      resource: R,
      query: ListQuery<R> = {}
    ): Effect.Effect<ListPage<R>, ClientError> =>
      call(group(resource).list({ urlParams: query })) as Effect.Effect<ListPage<R>, ClientError>

    const listPrices = (
      resource: CatalogResource,
      query: Omit<ListQuery<"products">, "mode"> = {}
    ): Effect.Effect<PriceListPage, ClientError> =>
      call(group(resource).list({ urlParams: { ...query, mode: "prices" } }))

    const get = <R extends CatalogResource>(resource: R, id: string): Effect.Effect<RecordOf<R>, ClientError> =>
      call(Effect.map(group(resource).get({ path: { id } }), (response) => response.record))

    const upsert = <R extends CatalogResource>(
      resource: R,
      body: BodyOf<R>,
      write: WriteOptions = {}
    ): Effect.Effect<WriteResult<R>, ClientError> =>
      call(
        group(resource).upsert({ payload: body, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } })
      ) as Effect.Effect<WriteResult<R>, ClientError>

    const archiveProduct = (
      id: string,
      expectedRevision: number,
      write: WriteOptions = {}
    ): Effect.Effect<WriteResult<"products">, ClientError> =>
      call(
        raw.products.archive({
          path: { id },
          payload: { expected_revision: expectedRevision },
          headers: { "idempotency-key": write.idempotencyKey ?? freshKey() }
        })
      ) as Effect.Effect<WriteResult<"products">, ClientError>

    /** Finds the record this connection maps to `externalId`, if any. */
    const findByExternalId = <R extends CatalogResource>(
      resource: R,
      externalId: string
    ): Effect.Effect<Option.Option<RecordOf<R>>, ClientError> =>
      Effect.map(list(resource, { external_id: externalId, limit: 1 }), (page) => Option.fromNullable(page.records[0]))

    const changes = (query: ChangesQuery = {}): Effect.Effect<ChangesPage, ClientError> =>
      call(raw.changes.changes({ urlParams: query, withResponse: false }))

    const inventory = {
      list: (query: InventoryQuery = {}): Effect.Effect<InventoryPage, ClientError> =>
        call(raw.inventory.list({ urlParams: query })),
      get: (id: string) => call(Effect.map(raw.inventory.get({ path: { id } }), (response) => response.record)),
      write: (body: StockWrite, write: WriteOptions = {}): Effect.Effect<StockWriteResult, ClientError> =>
        call(raw.inventory.write({ payload: body, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } }))
    }

    const jobs = {
      list: (query: JobsQuery = {}) => call(raw.jobs.list({ urlParams: query })),
      get: (id: string) => call(raw.jobs.get({ path: { id } })),
      retry: (id: string, write: WriteOptions = {}) =>
        call(raw.jobs.retry({ path: { id }, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } }))
    }

    const imports = {
      /** POST /imports: a dry run answers with its report; otherwise the queued job. */
      submit: (body: ImportBody, write: WriteOptions = {}) =>
        call(raw.imports.submit({ payload: body, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } })),
      get: (id: string) => call(raw.imports.get({ path: { id } }))
    }

    /**
     * Submits an import and polls its job until it is completed, failed or paused; returns the job and its
     * report. A dry run returns its report at once.
     */
    const runImportAndWait = (
      body: ImportBody,
      options: WriteOptions & { readonly pollInterval?: Duration.DurationInput } = {}
    ) =>
      Effect.gen(function* () {
        const submitted = yield* imports.submit(body, options)
        if (!("job" in submitted)) return submitted
        const id = submitted.job.id
        return yield* jobs.get(id).pipe(
          Effect.repeat({
            until: (detail) =>
              detail.job.state === "completed" || detail.job.state === "failed" || detail.job.state === "paused",
            // passthrough: the repeat then yields the last job detail, not the schedule's count.
            schedule: Schedule.passthrough(Schedule.spaced(options.pollInterval ?? "500 millis"))
          })
        )
      })

    const media = {
      list: (query: MediaQuery = {}) => call(raw.media.list({ urlParams: query })),
      get: (id: string) => call(Effect.map(raw.media.get({ path: { id } }), (response) => response.record)),
      /** POST /media: the file goes in the multipart part `file`; answers with the queued media job. */
      upload: (fields: MediaFields, file: Blob, write: WriteOptions = {}) =>
        call(
          Effect.suspend(() => {
            const form = new FormData()
            form.append("external_id", fields.external_id)
            form.append("name", fields.name)
            if (fields.purpose !== undefined) form.append("purpose", fields.purpose)
            form.append("file", file, "upload")
            return raw.media.upload({
              payload: form,
              headers: { "idempotency-key": write.idempotencyKey ?? freshKey() }
            })
          })
        )
    }

    /** Uploads an image and polls its job until it is completed, failed or paused. */
    const uploadMediaAndWait = (
      fields: MediaFields,
      file: Blob,
      options: WriteOptions & { readonly pollInterval?: Duration.DurationInput } = {}
    ) =>
      Effect.gen(function* () {
        const accepted = yield* media.upload(fields, file, options)
        return yield* jobs.get(accepted.job.id).pipe(
          Effect.repeat({
            until: (detail) =>
              detail.job.state === "completed" || detail.job.state === "failed" || detail.job.state === "paused",
            schedule: Schedule.passthrough(Schedule.spaced(options.pollInterval ?? "500 millis"))
          })
        )
      })

    /** Pages through any cursor list: `fetch(cursor)` reads one page; the stream emits the pages in order. */
    const pages = <P extends Page<unknown>, E, Q>(
      fetch: (cursor: string | undefined) => Effect.Effect<P, E, Q>
    ): Stream.Stream<P, E, Q> =>
      Stream.paginateEffect(undefined as string | undefined, (cursor) =>
        Effect.map(
          fetch(cursor),
          (page) =>
            [page, page.has_more && page.next_cursor !== null ? Option.some(page.next_cursor) : Option.none()] as const
        )
      )

    /** Every record of a catalog list, page after page (limit 100 unless the query says otherwise). */
    const listAll = <R extends CatalogResource>(
      resource: R,
      query: ListQuery<R> = {}
    ): Stream.Stream<RecordOf<R>, ClientError> =>
      pages((cursor) => list(resource, { limit: 100, ...query, ...(cursor === undefined ? {} : { cursor }) })).pipe(
        Stream.mapConcat((page) => page.records)
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
          Stream.mapConcat((page) => page.records),
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
          const result = yield* Effect.either(upsert(resource, attempted))
          if (result._tag === "Right") return result.right
          const conflict = result.left
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

    return {
      /** The contract's own client (every endpoint, raw declared errors), with the same discipline. */
      raw,
      /** Gives a `raw` call the client's tagged errors: `withTaggedErrors(raw.products.get({ path: { id } }))`. */
      withTaggedErrors: call,
      me,
      list,
      listPrices,
      get,
      findByExternalId,
      upsert,
      archiveProduct,
      changes,
      inventory,
      jobs,
      imports,
      runImportAndWait,
      media,
      uploadMediaAndWait,
      health: call(raw.system.health({ withResponse: false })),
      pages,
      listAll,
      exportAll,
      followChanges,
      upsertResolving,
      readModifyWrite
    }
  })

/** The typed client's shape. */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>

/** The client as a service, for programs that pass it through the context. */
export class CatalogSyncClient extends Context.Tag("@catalog-sync/client/CatalogSyncClient")<
  CatalogSyncClient,
  Client
>() {}

/** A layer of the client over the platform's fetch. */
export const layer = (options: ClientOptions): Layer.Layer<CatalogSyncClient> =>
  Layer.effect(CatalogSyncClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** Makes the client over fetch, without a layer. */
export const makeFetch = (options: ClientOptions): Effect.Effect<Client> =>
  Effect.provide(make(options), FetchHttpClient.layer)

export type { HttpClient }
