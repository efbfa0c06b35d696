/**
 * The Effect client with Promises, for connector authors who do not use Effect: the same methods, the
 * same options (durations in milliseconds) and the same answers. Failures reject with the same tagged
 * errors (`error._tag`, `error.code`, `error.request_id`).
 */
import { Cause, Effect, Exit, ManagedRuntime } from "effect"
import {
  type BodyOf,
  type CatalogResource,
  type Change,
  type ChangesPage,
  type ChangesQuery,
  type ClientOptions,
  type ImportBody,
  type InventoryQuery,
  type JobsQuery,
  type ListQuery,
  make,
  type MediaFields,
  type MediaQuery,
  type Page,
  type RawClient,
  type RecordOf,
  type StockWrite,
  type WriteOptions
} from "./Client.js"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type { RevisionConflict } from "./Errors.js"

const run = <A>(
  runtime: ManagedRuntime.ManagedRuntime<HttpClient.HttpClient, never>,
  effect: Effect.Effect<A, unknown>
): Promise<A> =>
  runtime.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    // Reject with the tagged error itself, not Effect's FiberFailure wrapper.
    throw Cause.squash(exit.cause)
  })

/** Options of the Promise `followChanges`. */
export interface FollowChangesOptions {
  /** Where to start: a persisted `next_cursor`, or a list's `change_cursor`; omitted, the company's history from its beginning. */
  readonly cursor?: string | undefined
  /** Only changes of these resources (GET /changes `resource`); omitted, every resource the key may read. */
  readonly resources?: ReadonlyArray<string>
  /** Changes per page, 1-100 (default: the server's, 50). */
  readonly limit?: number
  /** Handles the changes of one page, own changes already removed (unless `skipOwn: false`). Runs before the cursor is saved. */
  readonly onChanges: (changes: ReadonlyArray<Change>, page: ChangesPage) => Promise<void> | void
  /** Persists the page's `next_cursor`: called after every call, also for an empty (or fully filtered) page. */
  readonly saveCursor: (cursor: string) => Promise<void> | void
  /** Skip changes made by this key's own connection (echo suppression, default true). */
  readonly skipOwn?: boolean
  /** Keep polling (until `signal` aborts) instead of returning once caught up (default false). */
  readonly follow?: boolean
  /** Wait between polls once caught up, with `follow: true` (default 5000). */
  readonly pollIntervalMillis?: number
  /** Stops following; the returned Promise then rejects with an interruption. */
  readonly signal?: AbortSignal
}

/** Options of the helpers that wait for a job. */
export interface WaitOptions extends WriteOptions {
  /** Wait between two reads of the job (default 500). */
  readonly pollIntervalMillis?: number
}

const waitOptions = (options: WaitOptions | undefined) => ({
  ...(options?.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
  pollInterval: options?.pollIntervalMillis ?? 500
})

/**
 * Makes a client whose methods return Promises. Call `close()` when done.
 *
 * @example
 * ```ts
 * import { createClient } from "@catalog-sync/client"
 *
 * const apiKey = process.env.CATALOG_SYNC_KEY ?? ""
 * const client = createClient({ baseUrl: "http://localhost:8080", apiKey, appName: "erp-sync", appVersion: "1.2.0" })
 * const { record } = await client.upsert("categories", { external_id: "sofas", name: "Sofas" })
 * for await (const product of client.listAll("products")) console.log(product.name)
 * ```
 */
export const createClient = (options: ClientOptions) => {
  const runtime = ManagedRuntime.make(FetchHttpClient.layer)
  const client = runtime.runPromise(make(options))
  const use = <A>(f: (c: Effect.Success<ReturnType<typeof make>>) => Effect.Effect<A, unknown>) =>
    client.then((c) => run(runtime, f(c)))
  const promised = <E>(f: () => Promise<E> | E) => Effect.tryPromise({ try: async () => f(), catch: (error) => error })

  /** Pages through any cursor list: `fetch(cursor)` reads one page (no cursor: the first); yields the pages in order. */
  const pages = async function* <P extends Page<unknown>>(
    fetch: (cursor: string | undefined) => Promise<P>
  ): AsyncGenerator<P> {
    let cursor: string | undefined
    do {
      const page = await fetch(cursor)
      yield page
      cursor = page.has_more && page.next_cursor !== null ? page.next_cursor : undefined
    } while (cursor !== undefined)
  }

  const list = <R extends CatalogResource>(resource: R, query?: ListQuery<R>) => use((c) => c.list(resource, query))

  return {
    /** GET /me: `{ request_id, principal }`. */
    me: () => use((c) => c.me),
    /** GET /health. */
    health: () => use((c) => c.health),
    list,
    listPrices: (resource: CatalogResource, query?: Omit<ListQuery<"products">, "mode">) =>
      use((c) => c.listPrices(resource, query)),
    get: <R extends CatalogResource>(resource: R, id: string) => use((c) => c.get(resource, id)),
    findByExternalId: <R extends CatalogResource>(resource: R, externalId: string): Promise<RecordOf<R> | undefined> =>
      use((c) =>
        Effect.map(c.findByExternalId(resource, externalId), (found) =>
          found._tag === "Some" ? found.value : undefined
        )
      ),
    upsert: <R extends CatalogResource>(resource: R, body: BodyOf<R>, write?: WriteOptions) =>
      use((c) => c.upsert(resource, body, write)),
    archiveProduct: (id: string, expectedRevision: number, write?: WriteOptions) =>
      use((c) => c.archiveProduct(id, expectedRevision, write)),
    changes: (query?: ChangesQuery) => use((c) => c.changes(query)),
    imports: {
      /** POST /imports: a dry run answers with its report; otherwise the queued job. */
      submit: (body: ImportBody, write?: WriteOptions) => use((c) => c.imports.submit(body, write)),
      get: (id: string) => use((c) => c.imports.get(id))
    },
    /** Submits an import and waits for its job (a dry run answers with its report at once). */
    runImportAndWait: (body: ImportBody, options?: WaitOptions) =>
      use((c) => c.runImportAndWait(body, waitOptions(options))),
    media: {
      list: (query?: MediaQuery) => use((c) => c.media.list(query)),
      get: (id: string) => use((c) => c.media.get(id)),
      /** POST /media: the file goes in the multipart part `file`; answers with the queued media job. */
      upload: (fields: MediaFields, file: Blob, write?: WriteOptions) => use((c) => c.media.upload(fields, file, write))
    },
    /** Uploads an image and waits for its media job. */
    uploadMediaAndWait: (fields: MediaFields, file: Blob, options?: WaitOptions) =>
      use((c) => c.uploadMediaAndWait(fields, file, waitOptions(options))),
    jobs: {
      list: (query?: JobsQuery) => use((c) => c.jobs.list(query)),
      get: (id: string) => use((c) => c.jobs.get(id)),
      retry: (id: string, write?: WriteOptions) => use((c) => c.jobs.retry(id, write))
    },
    inventory: {
      list: (query?: InventoryQuery) => use((c) => c.inventory.list(query)),
      get: (id: string) => use((c) => c.inventory.get(id)),
      write: (body: StockWrite, write?: WriteOptions) => use((c) => c.inventory.write(body, write))
    },
    pages,
    /** Every record of a catalog list, fetched page by page (limit 100 unless the query says otherwise) as the loop asks for more. */
    listAll: async function* <R extends CatalogResource>(
      resource: R,
      query?: ListQuery<R>
    ): AsyncGenerator<RecordOf<R>> {
      const fetch = (cursor: string | undefined) =>
        list(resource, { limit: 100, ...query, ...(cursor === undefined ? {} : { cursor }) })
      for await (const page of pages(fetch)) yield* page.records
    },
    exportAll: <R extends CatalogResource>(resource: R, query?: ListQuery<R>) =>
      use((c) => c.exportAll(resource, query)),
    followChanges: (follow: FollowChangesOptions): Promise<string> =>
      use((c) => {
        const effect = c.followChanges({
          cursor: follow.cursor,
          ...(follow.resources === undefined ? {} : { resources: follow.resources }),
          ...(follow.limit === undefined ? {} : { limit: follow.limit }),
          ...(follow.skipOwn === undefined ? {} : { skipOwn: follow.skipOwn }),
          ...(follow.follow === undefined ? {} : { follow: follow.follow }),
          pollInterval: follow.pollIntervalMillis ?? 5000,
          onChanges: (changes, page) => promised(() => follow.onChanges(changes, page)),
          saveCursor: (cursor) => promised(() => follow.saveCursor(cursor))
        })
        const signal = follow.signal
        if (signal === undefined) return effect
        return Effect.raceFirst(
          effect,
          Effect.callback<string>((resume) => {
            const stop = () => resume(Effect.interrupt)
            if (signal.aborted) stop()
            else signal.addEventListener("abort", stop, { once: true })
            return Effect.sync(() => signal.removeEventListener("abort", stop))
          })
        )
      }),
    upsertResolving: <R extends CatalogResource>(
      resource: R,
      body: BodyOf<R>,
      resolve: (context: {
        attempted: BodyOf<R>
        current: RecordOf<R>
        conflict: RevisionConflict
      }) => Promise<BodyOf<R> | undefined> | BodyOf<R> | undefined,
      options?: { readonly maxAttempts?: number }
    ) => use((c) => c.upsertResolving(resource, body, (context) => promised(() => resolve(context)), options)),
    readModifyWrite: <R extends CatalogResource>(
      resource: R,
      externalId: string,
      modify: (
        current: RecordOf<R> | undefined
      ) =>
        | Promise<Omit<BodyOf<R>, "external_id" | "expected_revision">>
        | Omit<BodyOf<R>, "external_id" | "expected_revision">,
      options?: { readonly maxAttempts?: number }
    ) => use((c) => c.readModifyWrite(resource, externalId, (current) => promised(() => modify(current)), options)),
    /**
     * The escape hatch: any endpoint through the contract's own client (with the same credentials,
     * retries and pacing), e.g. `client.raw((api) => api.products.get({ params: { id } }))`. The answer is
     * the endpoint's body; failures reject with the client's tagged errors.
     */
    raw: <A>(call: (api: RawClient) => Effect.Effect<A, unknown>): Promise<A> =>
      use((c) => c.withTaggedErrors(call(c.raw))),
    /** Releases the client's resources. */
    close: () => runtime.dispose()
  }
}

/** The Promise client's shape. */
export type PromiseClient = ReturnType<typeof createClient>
