import { HttpApiBuilder, type HttpApiGroup, type HttpServerResponse } from "@effect/platform"
import {
  CatalogService,
  Decode,
  type IdempotencyStore,
  Ids,
  type Principal,
  type Resource,
  type Transactor
} from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { Api, type Authentication, CatalogApi, Common } from "@catalog-sync/contract"
import { api, type ApiErrorOf } from "../ErrorResponses.js"
import { decodedBody, writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"
import { ok } from "../JsonAnswer.js"

interface ListUrlParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly external_id?: string | undefined
  readonly mode?: "catalog" | "prices" | undefined
  readonly category_id?: string | undefined
  readonly collection_id?: string | undefined
  readonly brand_id?: string | undefined
  readonly active?: "true" | "false" | undefined
}

interface IdempotencyHeaders {
  readonly "idempotency-key": string
}

/** A uuid the contract decoded from the path or the query names a record. */
const recordId = (id: string) => Ids.RecordId.make(id)
const optionalRecordId = (id: string | undefined) => (id === undefined ? undefined : recordId(id))

const listParams = (query: ListUrlParams): CatalogService.ListParams => ({
  limit: query.limit ?? Common.defaultLimit,
  cursor: optionalRecordId(query.cursor),
  externalId: query.external_id,
  mode: query.mode,
  categoryId: optionalRecordId(query.category_id),
  collectionId: optionalRecordId(query.collection_id),
  brandId: optionalRecordId(query.brand_id),
  active: query.active === undefined ? undefined : query.active === "true"
})

/** The answer of `GET /{resource}/{id}`, by the route's handler and by the envelope's `FastGet`. */
export const recordAnswer = (
  catalog: CatalogService.CatalogService,
  resource: Resource.ResourceName,
  id: string
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  ApiErrorOf<Effect.Effect.Error<ReturnType<CatalogService.CatalogService["get"]>>>,
  Principal.CurrentPrincipal
> =>
  Effect.gen(function* () {
    const record = yield* api(catalog.get(resource, recordId(id)))
    return ok({ request_id: yield* requestId, record })
  })

/**
 * The list, get and upsert handlers of one catalog resource, typed by its record: they only shape
 * envelopes, and the upsert decodes its body (`decodedBody`) once the key may write.
 */
const catalogEndpoints = <Name extends Resource.ResourceName>(
  catalog: CatalogService.CatalogService,
  resource: Name
) => {
  const decodeBody = Decode.upsertDecoderOf(resource, "the body")
  return {
    list: ({ urlParams }: { readonly urlParams: ListUrlParams }) =>
      Effect.gen(function* () {
        const page = yield* api(catalog.list(resource, listParams(urlParams)))
        return ok({ request_id: yield* requestId, ...page })
      }),
    get: ({ path }: { readonly path: { readonly id: string } }) => recordAnswer(catalog, resource, path.id),
    upsert: ({ headers }: { readonly headers: IdempotencyHeaders }) =>
      Effect.gen(function* () {
        const payload = yield* decodedBody(decodeBody, (sent) => catalog.preauthorizeUpsert(resource, sent))
        return ok(yield* writeEnvelope(headers["idempotency-key"], payload, catalog.upsertCommand(resource, payload)))
      })
  }
}

const decodeArchiveBody = Decode.decoderOf(CatalogApi.ArchiveBody, "the body")

const archive =
  (catalog: CatalogService.CatalogService) =>
  ({ path, headers }: { readonly path: { readonly id: string }; readonly headers: IdempotencyHeaders }) =>
    Effect.gen(function* () {
      const payload = yield* decodedBody(decodeArchiveBody, () => catalog.authorizeArchive)
      return ok(
        yield* writeEnvelope(
          headers["idempotency-key"],
          payload,
          catalog.archiveCommand(recordId(path.id), payload.expected_revision)
        )
      )
    })

const withCatalog = <A>(build: (catalog: CatalogService.CatalogService) => A) =>
  Effect.map(CatalogService.CatalogService, build)

/** Handlers of all seven catalog resources; each group is checked against its endpoints in the contract. */
export const CatalogHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<
    "catalog-sync",
    | "products"
    | "categories"
    | "collections"
    | "brands"
    | "customizationTypes"
    | "customizationGroups"
    | "customizationOptions"
  >,
  never,
  CatalogService.CatalogService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = Layer.mergeAll(
  HttpApiBuilder.group(Api, "products", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "products")
      return handlers
        .handle("list", endpoints.list)
        .handle("get", endpoints.get)
        .handleRaw("upsert", endpoints.upsert)
        .handleRaw("archive", archive(catalog))
    })
  ),
  HttpApiBuilder.group(Api, "categories", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "categories")
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handleRaw("upsert", endpoints.upsert)
    })
  ),
  HttpApiBuilder.group(Api, "collections", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "collections")
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handleRaw("upsert", endpoints.upsert)
    })
  ),
  HttpApiBuilder.group(Api, "brands", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "brands")
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handleRaw("upsert", endpoints.upsert)
    })
  ),
  HttpApiBuilder.group(Api, "customizationTypes", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "customization-types")
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handleRaw("upsert", endpoints.upsert)
    })
  ),
  HttpApiBuilder.group(Api, "customizationGroups", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "customization-groups")
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handleRaw("upsert", endpoints.upsert)
    })
  ),
  HttpApiBuilder.group(Api, "customizationOptions", (handlers) =>
    withCatalog((catalog) => {
      const endpoints = catalogEndpoints(catalog, "customization-options")
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handleRaw("upsert", endpoints.upsert)
    })
  )
)
