import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { CatalogService, Decode, type IdempotencyStore, Ids, type Resource, type Transactor } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { Api, type Authentication, CatalogApi, Common } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { rawWrite, writeEnvelope } from "../Writes.js"
import { CurrentRequest } from "../RequestId.js"
import { serialised, serialisedText } from "../Answers.js"
import { fastAnswer } from "../FastAnswer.js"
import { servicesAtBuild } from "../GroupServices.js"

interface ListQuery {
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

const listParams = (query: ListQuery): CatalogService.ListParams => ({
  limit: query.limit ?? Common.defaultLimit,
  cursor: optionalRecordId(query.cursor),
  externalId: query.external_id,
  mode: query.mode,
  categoryId: optionalRecordId(query.category_id),
  collectionId: optionalRecordId(query.collection_id),
  brandId: optionalRecordId(query.brand_id),
  active: query.active === undefined ? undefined : query.active === "true"
})

/**
 * The list, get and upsert handlers of one catalog resource, typed by its record: they only shape
 * envelopes, serialised as built (Answers.ts); the upsert is a raw write, its body decoded once the key
 * may write.
 */
const catalogEndpoints = <Name extends Resource.ResourceName>(
  catalog: CatalogService.CatalogService["Service"],
  resource: Name
) => {
  const decodeBody = Decode.upsertDecoderOf(resource, "the body")
  return {
    // The envelopes are written as text around the records' JSON (CatalogService's getJson and listJson),
    // their keys in the order `{ request_id, ...page }` and `{ request_id, record }` would give.
    list: ({ query }: { readonly query: ListQuery }) =>
      Effect.flatMap(CurrentRequest, (state) =>
        Effect.map(api(catalog.listJson(resource, listParams(query))), (page) =>
          serialisedText(
            `{"request_id":${JSON.stringify(state.id)}` +
              (page.change_cursor === undefined ? "" : `,"change_cursor":${JSON.stringify(page.change_cursor)}`) +
              `,"records":${page.records},"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`
          )
        )
      ),
    get: ({ params }: { readonly params: { readonly id: string } }) =>
      Effect.flatMap(CurrentRequest, (state) =>
        Effect.map(api(catalog.getJson(resource, recordId(params.id))), (record) =>
          serialisedText(`{"request_id":${JSON.stringify(state.id)},"record":${record}}`)
        )
      ),
    upsert: rawWrite(
      { decode: decodeBody, authorize: (sent) => catalog.preauthorizeUpsert(resource, sent) },
      (payload, { headers }: { readonly headers: IdempotencyHeaders }) =>
        Effect.map(
          writeEnvelope(headers["idempotency-key"], payload, catalog.upsertCommand(resource, payload)),
          serialised
        )
    )
  }
}

const decodeArchiveBody = Decode.decoderOf(CatalogApi.ArchiveBody, "the body")

const archive = (catalog: CatalogService.CatalogService["Service"]) =>
  rawWrite(
    { decode: decodeArchiveBody, authorize: () => catalog.authorizeArchive },
    (
      payload,
      { params, headers }: { readonly params: { readonly id: string }; readonly headers: IdempotencyHeaders }
    ) =>
      Effect.map(
        writeEnvelope(
          headers["idempotency-key"],
          payload,
          catalog.archiveCommand(recordId(params.id), payload.expected_revision)
        ),
        serialised
      )
  )

const withCatalog = <A>(build: (catalog: CatalogService.CatalogService["Service"]) => A) =>
  Effect.map(CatalogService.CatalogService, build)

/** The contract's catalog groups and the resource each serves. */
const catalogGroups = [
  ["products", "products"],
  ["categories", "categories"],
  ["collections", "collections"],
  ["brands", "brands"],
  ["customizationTypes", "customization-types"],
  ["customizationGroups", "customization-groups"],
  ["customizationOptions", "customization-options"]
] as const

/**
 * `GET /{resource}/{id}` and `GET /{resource}` of every catalog resource answered fast (FastAnswer) by the
 * handlers its group uses: the reads connectors repeat most cost about what their SQL costs.
 */
export const CatalogFastAnswers = Effect.flatMap(CatalogService.CatalogService, (catalog) =>
  Effect.all(
    catalogGroups.flatMap(([group, resource]) => {
      const endpoints = catalogEndpoints(catalog, resource)
      return [fastAnswer(Api, group, "get", endpoints.get), fastAnswer(Api, group, "list", endpoints.list)]
    })
  )
)

/** Handlers of all seven catalog resources; each group is checked against its endpoints in the contract. */
export const CatalogHttpLive: Layer.Layer<
  | HttpApiGroup.Service<"catalog-sync", "products">
  | HttpApiGroup.Service<"catalog-sync", "categories">
  | HttpApiGroup.Service<"catalog-sync", "collections">
  | HttpApiGroup.Service<"catalog-sync", "brands">
  | HttpApiGroup.Service<"catalog-sync", "customizationTypes">
  | HttpApiGroup.Service<"catalog-sync", "customizationGroups">
  | HttpApiGroup.Service<"catalog-sync", "customizationOptions">,
  never,
  CatalogService.CatalogService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = servicesAtBuild(
  Layer.mergeAll(
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
        return handlers
          .handle("list", endpoints.list)
          .handle("get", endpoints.get)
          .handleRaw("upsert", endpoints.upsert)
      })
    ),
    HttpApiBuilder.group(Api, "collections", (handlers) =>
      withCatalog((catalog) => {
        const endpoints = catalogEndpoints(catalog, "collections")
        return handlers
          .handle("list", endpoints.list)
          .handle("get", endpoints.get)
          .handleRaw("upsert", endpoints.upsert)
      })
    ),
    HttpApiBuilder.group(Api, "brands", (handlers) =>
      withCatalog((catalog) => {
        const endpoints = catalogEndpoints(catalog, "brands")
        return handlers
          .handle("list", endpoints.list)
          .handle("get", endpoints.get)
          .handleRaw("upsert", endpoints.upsert)
      })
    ),
    HttpApiBuilder.group(Api, "customizationTypes", (handlers) =>
      withCatalog((catalog) => {
        const endpoints = catalogEndpoints(catalog, "customization-types")
        return handlers
          .handle("list", endpoints.list)
          .handle("get", endpoints.get)
          .handleRaw("upsert", endpoints.upsert)
      })
    ),
    HttpApiBuilder.group(Api, "customizationGroups", (handlers) =>
      withCatalog((catalog) => {
        const endpoints = catalogEndpoints(catalog, "customization-groups")
        return handlers
          .handle("list", endpoints.list)
          .handle("get", endpoints.get)
          .handleRaw("upsert", endpoints.upsert)
      })
    ),
    HttpApiBuilder.group(Api, "customizationOptions", (handlers) =>
      withCatalog((catalog) => {
        const endpoints = catalogEndpoints(catalog, "customization-options")
        return handlers
          .handle("list", endpoints.list)
          .handle("get", endpoints.get)
          .handleRaw("upsert", endpoints.upsert)
      })
    )
  )
)
