/**
 * The HTTP contract of the Catalog Synchronization Integration API v1: the HttpApi (one group per
 * resource, each endpoint with its errors and OpenAPI examples), the error bodies and the Authentication
 * middleware tag. Servers implement it (`@catalog-sync/adapter-http`); clients derive from it
 * (`@catalog-sync/client`, and any client generated from the OpenAPI document it describes).
 *
 * @packageDocumentation
 */
export { Api } from "./Api.js"
export * as ApiErrors from "./ApiErrors.js"
/** The error bodies by status, also at the top level, where declarations of derived clients name them. */
export {
  BadRequest,
  Conflict,
  Forbidden,
  InternalError,
  NotFound,
  PayloadTooLarge,
  RequestHeadersTooLarge,
  RequestTimeout,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  Unprocessable,
  UnsupportedMediaType
} from "./ApiErrors.js"
export { Authentication } from "./Authentication.js"
/** Schemas the endpoint groups share. */
export * as Common from "./Common.js"
/** The catalog resources' endpoint groups, with their query, body and response schemas. */
export * as CatalogApi from "./Catalog/Api.js"
/** The change feed's endpoint group (`GET /changes`), with its query and response schemas. */
export * as ChangesApi from "./Changes/Api.js"
/** The schemas of the bodies and records the contract carries, for clients that derive types from them. */
export {
  Brand,
  Category,
  Collection,
  CustomizationGroup,
  CustomizationOption,
  CustomizationType,
  Import,
  Inventory,
  Job,
  Media,
  Product
} from "@catalog-sync/core"
/** How a client words a refused value in plain language, as the server does. */
export { PlainIssues } from "@catalog-sync/core"
