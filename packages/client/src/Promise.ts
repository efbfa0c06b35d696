/**
 * A thin Promise facade over the Effect client, for connector authors who do not use Effect. Failures
 * reject with the same tagged errors (`error._tag`, `error.code`, `error.request_id`).
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
  type ListQuery,
  make,
  type RecordOf,
  type StockWrite,
  type WriteOptions
} from "./Client.js"
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import type { RevisionConflict } from "./Errors.js"

const run = <A>(runtime: ManagedRuntime.ManagedRuntime<HttpClient.HttpClient, never>, effect: Effect.Effect<A, unknown>): Promise<A> =>
  runtime.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    // Reject with the tagged error itself, not Effect's FiberFailure wrapper.
    throw Cause.squash(exit.cause)
  })

/** Options of the Promise `followChanges`. */
export interface FollowChangesOptions {
  readonly cursor?: string | undefined
  readonly resources?: ReadonlyArray<string>
  readonly limit?: number
  readonly onChanges: (changes: ReadonlyArray<Change>, page: ChangesPage) => Promise<void> | void
  readonly saveCursor: (cursor: string) => Promise<void> | void
  readonly skipOwn?: boolean
  /** Keep polling (until `signal` aborts) instead of returning once caught up. */
  readonly follow?: boolean
  readonly pollIntervalMillis?: number
  readonly signal?: AbortSignal
}

/**
 * Makes a client whose methods return Promises. Call `close()` when done.
 *
 * ```ts
 * const client = createClient({ baseUrl: "http://localhost:8080", apiKey, appName: "erp-sync", appVersion: "1.2.0" })
 * const { record } = await client.upsert("categories", { external_id: "sofas", name: "Sofas" })
 * for await (const product of client.listAll("products")) console.log(product.name)
 * ```
 */
export const createClient = (options: ClientOptions) => {
  const runtime = ManagedRuntime.make(FetchHttpClient.layer)
  const client = runtime.runPromise(make(options))
  const use = <A>(f: (c: Effect.Effect.Success<ReturnType<typeof make>>) => Effect.Effect<A, unknown>) =>
    client.then((c) => run(runtime, f(c)))
  const promised = <E>(f: () => Promise<E> | E) => Effect.tryPromise({ try: async () => f(), catch: (error) => error })

  return {
    me: () => use((c) => c.me),
    list: <R extends CatalogResource>(resource: R, query?: ListQuery<R>) => use((c) => c.list(resource, query)),
    listPrices: (resource: CatalogResource, query?: Omit<ListQuery<"products">, "mode">) => use((c) => c.listPrices(resource, query)),
    get: <R extends CatalogResource>(resource: R, id: string) => use((c) => c.get(resource, id)),
    findByExternalId: <R extends CatalogResource>(resource: R, externalId: string): Promise<RecordOf<R> | undefined> =>
      use((c) => Effect.map(c.findByExternalId(resource, externalId), (found) => (found._tag === "Some" ? found.value : undefined))),
    upsert: <R extends CatalogResource>(resource: R, body: BodyOf<R>, write?: WriteOptions) => use((c) => c.upsert(resource, body, write)),
    archiveProduct: (id: string, expectedRevision: number, write?: WriteOptions) => use((c) => c.archiveProduct(id, expectedRevision, write)),
    changes: (query?: ChangesQuery) => use((c) => c.changes(query)),
    /** Submits an import and waits for its job (a dry run answers with its report at once). */
    runImportAndWait: (body: ImportBody, options?: WriteOptions & { readonly pollIntervalMillis?: number }) =>
      use((c) =>
        c.runImportAndWait(body, {
          ...(options?.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
          pollInterval: options?.pollIntervalMillis ?? 500
        })
      ),
    /** Uploads an image (multipart part `file`) and waits for its media job. */
    uploadMediaAndWait: (
      fields: { readonly external_id: string; readonly name: string; readonly purpose?: "catalog" | "option" | undefined },
      file: Blob,
      options?: WriteOptions & { readonly pollIntervalMillis?: number }
    ) =>
      use((c) =>
        c.uploadMediaAndWait(fields, file, {
          ...(options?.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
          pollInterval: options?.pollIntervalMillis ?? 500
        })
      ),
    media: {
      list: (query?: { readonly limit?: number; readonly cursor?: string; readonly external_id?: string }) => use((c) => c.media.list(query)),
      get: (id: string) => use((c) => c.media.get(id))
    },
    jobs: {
      get: (id: string) => use((c) => c.jobs.get(id)),
      retry: (id: string, write?: WriteOptions) => use((c) => c.jobs.retry(id, write))
    },
    inventory: {
      list: (query?: InventoryQuery) => use((c) => c.inventory.list(query)),
      get: (id: string) => use((c) => c.inventory.get(id)),
      write: (body: StockWrite, write?: WriteOptions) => use((c) => c.inventory.write(body, write))
    },
    /** Every record of a list, fetched page by page as the loop asks for more. */
    listAll: async function* <R extends CatalogResource>(resource: R, query?: ListQuery<R>): AsyncGenerator<RecordOf<R>> {
      let cursor: string | undefined
      do {
        const page = await use((c) => c.list(resource, { limit: 100, ...query, ...(cursor === undefined ? {} : { cursor }) } as ListQuery<R>))
        yield* page.records
        cursor = page.has_more && page.next_cursor !== null ? page.next_cursor : undefined
      } while (cursor !== undefined)
    },
    exportAll: <R extends CatalogResource>(resource: R, query?: ListQuery<R>) => use((c) => c.exportAll(resource, query)),
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
          Effect.async<string>((resume) => {
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
      resolve: (context: { attempted: BodyOf<R>; current: RecordOf<R>; conflict: RevisionConflict }) => Promise<BodyOf<R> | undefined> | BodyOf<R> | undefined,
      options?: { readonly maxAttempts?: number }
    ) => use((c) => c.upsertResolving(resource, body, (context) => promised(() => resolve(context)), options)),
    readModifyWrite: <R extends CatalogResource>(
      resource: R,
      externalId: string,
      modify: (current: RecordOf<R> | undefined) => Promise<Omit<BodyOf<R>, "external_id" | "expected_revision">> | Omit<BodyOf<R>, "external_id" | "expected_revision">,
      options?: { readonly maxAttempts?: number }
    ) => use((c) => c.readModifyWrite(resource, externalId, (current) => promised(() => modify(current)), options)),
    /** Releases the client's resources. */
    close: () => runtime.dispose()
  }
}

/** The Promise client's shape. */
export type PromiseClient = ReturnType<typeof createClient>
