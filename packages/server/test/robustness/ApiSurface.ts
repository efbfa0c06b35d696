/**
 * The endpoints of the HttpApi contract, read from `Api` itself, so that the fuzzer and the isolation
 * sweep cover an endpoint the day it is added (and fail until it has a case).
 */
import { Api } from "@catalog-sync/contract"
import type { Schema } from "effect"
import { Option } from "effect"

/** What the contract says of an endpoint: method, path (as served: `/api/v1/products/:id`) and schemas. */
interface AnyEndpoint {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly pathSchema: Option.Option<Schema.Schema.AnyNoContext>
  readonly urlParamsSchema: Option.Option<Schema.Schema.AnyNoContext>
  readonly payloadSchema: Option.Option<Schema.Schema.AnyNoContext>
  readonly headersSchema: Option.Option<Schema.Schema.AnyNoContext>
}

export interface Endpoint extends Omit<AnyEndpoint, "name"> {
  /** `group.endpoint`, e.g. `products.upsert`. */
  readonly key: string
  /** As in the OpenAPI document: `/api/v1/products/{id}`. */
  readonly openApiPath: string
}

export const endpoints: ReadonlyArray<Endpoint> = Object.values(
  Api.groups as unknown as Record<
    string,
    { readonly identifier: string; readonly endpoints: Record<string, AnyEndpoint> }
  >
).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({
    key: `${group.identifier}.${endpoint.name}`,
    method: endpoint.method,
    path: endpoint.path,
    openApiPath: endpoint.path.replace(/:(\w+)/g, "{$1}"),
    pathSchema: endpoint.pathSchema,
    urlParamsSchema: endpoint.urlParamsSchema,
    payloadSchema: endpoint.payloadSchema,
    headersSchema: endpoint.headersSchema
  }))
)

export const hasPayload = (endpoint: Endpoint) => Option.isSome(endpoint.payloadSchema)
export const needsIdempotencyKey = (endpoint: Endpoint) => Option.isSome(endpoint.headersSchema)
export const isMultipart = (endpoint: Endpoint) => endpoint.key === "media.upload"

/** Fills `:id` with a value (already encoded for a URL). */
export const fillPath = (endpoint: Endpoint, id: string) => endpoint.path.replace(":id", id)
