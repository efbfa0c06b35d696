import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { CatalogService, type IdempotencyStore, type Resource, type Transactor } from "@catalog-sync/core"
import type { Authentication } from "@catalog-sync/contract"
import { Effect, Layer } from "effect"
import { Api } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"

type CatalogGroupName =
  | "products"
  | "categories"
  | "collections"
  | "brands"
  | "customizationTypes"
  | "customizationGroups"
  | "customizationOptions"

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

const listParams = (query: ListUrlParams): CatalogService.ListParams => ({
  limit: query.limit ?? 50,
  cursor: query.cursor as never,
  externalId: query.external_id,
  mode: query.mode,
  categoryId: query.category_id as never,
  collectionId: query.collection_id as never,
  brandId: query.brand_id as never,
  active: query.active === undefined ? undefined : query.active === "true"
})

type CatalogGroupLayer = Layer.Layer<
  HttpApiGroup.ApiGroup<"catalog-sync", CatalogGroupName>,
  never,
  CatalogService.CatalogService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
>

/** The handlers of one catalog resource: they decode nothing themselves and only shape envelopes. */
const catalogHandlers = (group: CatalogGroupName, resource: Resource.ResourceName) =>
  // One generic builder for seven groups: the group name is a union here, so the handler types are
  // checked per endpoint by the schemas at run time and asserted once below.
  HttpApiBuilder.group(Api, group as "products", ((handlers: any) =>
    Effect.gen(function* () {
      const catalog = yield* CatalogService.CatalogService
      const base = handlers
        .handle("list", ({ urlParams }: { urlParams: ListUrlParams }) =>
          Effect.gen(function* () {
            const page = yield* api(catalog.list(resource, listParams(urlParams)))
            return { request_id: yield* requestId, ...page }
          })
        )
        .handle("get", ({ path }: { path: { id: string } }) =>
          Effect.gen(function* () {
            const record = yield* api(catalog.get(resource, path.id as never))
            return { request_id: yield* requestId, record }
          })
        )
        .handle("upsert", ({ payload, headers }: { payload: Record<string, unknown>; headers: { "idempotency-key": string } }) =>
          writeEnvelope(headers["idempotency-key"], payload, catalog.upsertCommand(resource, payload))
        )
      return resource === "products"
        ? base.handle(
            "archive",
            ({ path, payload, headers }: { path: { id: string }; payload: { expected_revision: number }; headers: { "idempotency-key": string } }) =>
              writeEnvelope(headers["idempotency-key"], payload, catalog.archiveCommand(path.id as never, payload.expected_revision))
          )
        : base
    })) as never
  ) as unknown as CatalogGroupLayer

/** Handlers of all seven catalog resources. */
export const CatalogHttpLive: CatalogGroupLayer = Layer.mergeAll(
  catalogHandlers("products", "products"),
  catalogHandlers("categories", "categories"),
  catalogHandlers("collections", "collections"),
  catalogHandlers("brands", "brands"),
  catalogHandlers("customizationTypes", "customization-types"),
  catalogHandlers("customizationGroups", "customization-groups"),
  catalogHandlers("customizationOptions", "customization-options")
)
