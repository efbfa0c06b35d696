/**
 * Typed client of the Catalog Synchronization Integration API v1.
 *
 * - Effect: `CatalogSyncClient.make(options)` (needs an HttpClient) or `CatalogSyncClient.layer(options)`.
 * - Promises: `createClient(options)`.
 *
 * @packageDocumentation
 */
export * as CatalogSyncClient from "./Client.js"
export type {
  BodyOf,
  CatalogResource,
  Change,
  ChangesPage,
  Client,
  ClientOptions,
  ImportBody,
  InventoryQuery,
  JobsQuery,
  ListPage,
  ListQuery,
  MediaFields,
  MediaQuery,
  MeAnswer,
  Page,
  Principal,
  RawClient,
  RecordOf,
  WriteOptions,
  WriteResult
} from "./Client.js"
export * as Discipline from "./Discipline.js"
export * as Pacer from "./Pacer.js"
export {
  CatalogSyncError,
  type ClientError,
  type ErrorCode,
  fromRaw,
  InvalidRequest,
  NetworkError,
  RevisionConflict,
  UnexpectedResponse
} from "./Errors.js"
export { createClient, type FollowChangesOptions, type PromiseClient, type WaitOptions } from "./Promise.js"
