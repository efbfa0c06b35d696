/**
 * The typed client: derived from the HttpApi contract of `@catalog-sync/contract` with
 * `HttpApiClient.make`, wrapped in the client discipline (see Discipline.ts), with tagged errors
 * (see Errors.ts) and the helpers a connector needs: waiting for jobs, and (see Sync.ts) paging, following
 * the change feed and read-modify-write. The types of requests and answers are in Contract.ts.
 */
import { Api } from "@catalog-sync/contract"
import { Context, type Duration, Effect, Layer, Option, Schedule } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import {
  type BodyOf,
  type CatalogResource,
  catalogGroups,
  type ChangesPage,
  type ChangesQuery,
  type ImportBody,
  type InventoryPage,
  type InventoryQuery,
  type JobsQuery,
  type ListPage,
  type ListQuery,
  type MeAnswer,
  type MediaFields,
  type MediaQuery,
  type PriceListPage,
  type RawClient,
  type RecordOf,
  type StockWrite,
  type StockWriteResult,
  type WriteOptions,
  type WriteResult
} from "./Contract.js"
import { type CallTrace, currentCall, discipline, type DisciplineOptions } from "./Discipline.js"
import { type ClientError, fromRaw } from "./Errors.js"
import * as Sync from "./Sync.js"

export {
  type BodyOf,
  type CatalogResource,
  catalogGroups,
  type Change,
  type ChangesPage,
  type ChangesQuery,
  type ImportBody,
  type InventoryPage,
  type InventoryQuery,
  type JobsQuery,
  type ListPage,
  type ListQuery,
  type MeAnswer,
  type MediaFields,
  type MediaQuery,
  type PriceListPage,
  type Principal,
  type RawClient,
  type RecordOf,
  type Schemas,
  type StockWrite,
  type StockWriteResult,
  type WriteOptions,
  type WriteResult
} from "./Contract.js"
export type { FollowOptions, Page, Resolve } from "./Sync.js"

/** How to reach the API and who is calling. */
export interface ClientOptions extends DisciplineOptions {
  /** The server's origin, e.g. `http://localhost:8080`; `/api/v1` is part of the contract's paths. */
  readonly baseUrl: string
}

const makeRaw = (options: ClientOptions) =>
  HttpApiClient.make(Api, { baseUrl: options.baseUrl, transformClient: discipline(options) })

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
          Effect.provideService(currentCall, trace)
        )
      })
    // The generic group lookup loses the per-group method types; each method below restores them.
    const group = (resource: CatalogResource) => raw[catalogGroups[resource]] as unknown as RawClient["products"]

    /** GET /me: `{ request_id, principal }`, as the API answers. */
    const me: Effect.Effect<MeAnswer, ClientError> = call(raw.me.me({ responseMode: "decoded-only" }))

    const list = <R extends CatalogResource>(
      resource: R,
      query: ListQuery<R> = {}
    ): Effect.Effect<ListPage<R>, ClientError> =>
      call(group(resource).list({ query })) as Effect.Effect<ListPage<R>, ClientError>

    const listPrices = (
      resource: CatalogResource,
      query: Omit<ListQuery<"products">, "mode"> = {}
    ): Effect.Effect<PriceListPage, ClientError> => call(group(resource).list({ query: { ...query, mode: "prices" } }))

    const get = <R extends CatalogResource>(resource: R, id: string): Effect.Effect<RecordOf<R>, ClientError> =>
      call(Effect.map(group(resource).get({ params: { id } }), (response) => response.record))

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
          params: { id },
          payload: { expected_revision: expectedRevision },
          headers: { "idempotency-key": write.idempotencyKey ?? freshKey() }
        })
      ) as Effect.Effect<WriteResult<"products">, ClientError>

    /** Finds the record this connection maps to `externalId`, if any. */
    const findByExternalId = <R extends CatalogResource>(
      resource: R,
      externalId: string
    ): Effect.Effect<Option.Option<RecordOf<R>>, ClientError> =>
      Effect.map(list(resource, { external_id: externalId, limit: 1 }), (page) => Option.fromNullishOr(page.records[0]))

    const changes = (query: ChangesQuery = {}): Effect.Effect<ChangesPage, ClientError> =>
      call(raw.changes.changes({ query }))

    const inventory = {
      list: (query: InventoryQuery = {}): Effect.Effect<InventoryPage, ClientError> =>
        call(raw.inventory.list({ query })),
      get: (id: string) => call(Effect.map(raw.inventory.get({ params: { id } }), (response) => response.record)),
      write: (body: StockWrite, write: WriteOptions = {}): Effect.Effect<StockWriteResult, ClientError> =>
        call(raw.inventory.write({ payload: body, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } }))
    }

    const jobs = {
      list: (query: JobsQuery = {}) => call(raw.jobs.list({ query })),
      get: (id: string) => call(raw.jobs.get({ params: { id } })),
      retry: (id: string, write: WriteOptions = {}) =>
        call(raw.jobs.retry({ params: { id }, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } }))
    }

    const imports = {
      /** POST /imports: a dry run answers with its report; otherwise the queued job. */
      submit: (body: ImportBody, write: WriteOptions = {}) =>
        call(raw.imports.submit({ payload: body, headers: { "idempotency-key": write.idempotencyKey ?? freshKey() } })),
      get: (id: string) => call(raw.imports.get({ params: { id } }))
    }

    /**
     * Submits an import and polls its job until it is completed, failed or paused; returns the job and its
     * report. A dry run returns its report at once.
     */
    const runImportAndWait = (
      body: ImportBody,
      options: WriteOptions & { readonly pollInterval?: Duration.Input } = {}
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
      list: (query: MediaQuery = {}) => call(raw.media.list({ query })),
      get: (id: string) => call(Effect.map(raw.media.get({ params: { id } }), (response) => response.record)),
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
      options: WriteOptions & { readonly pollInterval?: Duration.Input } = {}
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

    const sync = Sync.make({ me, list, get, findByExternalId, upsert, changes })

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
      health: call(raw.system.health({ responseMode: "decoded-only" })),
      ...sync
    }
  })

/** The typed client's shape. */
export type Client = Effect.Success<ReturnType<typeof make>>

/** The client as a service, for programs that pass it through the context. */
export class CatalogSyncClient extends Context.Service<CatalogSyncClient, Client>()(
  "@catalog-sync/client/CatalogSyncClient"
) {}

/** A layer of the client over the platform's fetch. */
export const layer = (options: ClientOptions): Layer.Layer<CatalogSyncClient> =>
  Layer.effect(CatalogSyncClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))

/** Makes the client over fetch, without a layer. */
export const makeFetch = (options: ClientOptions): Effect.Effect<Client> =>
  Effect.provide(make(options), FetchHttpClient.layer)

export type { HttpClient }
