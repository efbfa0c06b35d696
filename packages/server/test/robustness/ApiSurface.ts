/**
 * The endpoints of the HttpApi contract, read from `Api` itself, so that the fuzzer and the isolation
 * sweep cover an endpoint the day it is added (and fail until it has a case).
 */
import { Api } from "@catalog-sync/contract"
import { Option, type Schema } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/** A request part's schema, as the server decodes and a client encodes it (the contract's need no services). */
export type PartSchema = Schema.Codec<unknown, unknown>

/** What the contract says of an endpoint: method, path (as served: `/api/v1/products/:id`) and schemas. */
interface AnyEndpoint {
  readonly method: string
  readonly path: string
  readonly pathSchema: Option.Option<PartSchema>
  readonly urlParamsSchema: Option.Option<PartSchema>
  /** The body's schema: JSON, or the multipart form of `media.upload`. */
  readonly payloadSchema: Option.Option<PartSchema>
  readonly headersSchema: Option.Option<PartSchema>
  /** The success schemas, one per status the endpoint answers with. */
  readonly successSchemas: ReadonlyArray<PartSchema>
}

export interface Endpoint extends AnyEndpoint {
  /** `group.endpoint`, e.g. `products.upsert`. */
  readonly key: string
  /** As in the OpenAPI document: `/api/v1/products/{id}`. */
  readonly openApiPath: string
}

const part = (schema: Schema.Top | undefined): Option.Option<PartSchema> =>
  Option.fromNullishOr(schema as PartSchema | undefined)

/** The first body schema of the endpoint's first content type (each of the contract's has one). */
const payloadOf = (endpoint: HttpApiEndpoint.Top): Option.Option<PartSchema> => {
  const [first] = endpoint.payload.values()
  return part(first?.schemas[0])
}

export const endpoints: ReadonlyArray<Endpoint> = Object.values(
  Api.groups as unknown as Record<string, HttpApiGroup.Top>
).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({
    key: `${group.identifier}.${endpoint.identifier}`,
    method: endpoint.method,
    path: endpoint.path,
    openApiPath: endpoint.path.replace(/:(\w+)/g, "{$1}"),
    pathSchema: part(endpoint.params),
    urlParamsSchema: part(endpoint.query),
    payloadSchema: payloadOf(endpoint),
    headersSchema: part(endpoint.headers),
    successSchemas: [...endpoint.success].map((schema) => schema as PartSchema)
  }))
)

export const hasPayload = (endpoint: Endpoint) => Option.isSome(endpoint.payloadSchema)
export const needsIdempotencyKey = (endpoint: Endpoint) => Option.isSome(endpoint.headersSchema)
export const isMultipart = (endpoint: Endpoint) => endpoint.key === "media.upload"

/** Fills `:id` with a value (already encoded for a URL). */
export const fillPath = (endpoint: Endpoint, id: string) => endpoint.path.replace(":id", id)
