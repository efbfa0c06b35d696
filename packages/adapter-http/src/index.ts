/**
 * `ApiLive`, the whole HTTP API as a layer, and `Readiness`, what `GET /ready` checks: what an embedding
 * application serves. The rest are the edge's settings and checks the server applies before a request
 * reaches the API (trusted proxies, hosts, the authentication failure budget, declared body sizes).
 */
import { type HttpApi, HttpApiBuilder } from "@effect/platform"
import type {
  Accounts,
  CatalogService,
  ChangeFeed,
  IdempotencyStore,
  ImportService,
  InventoryService,
  JobService,
  MediaService,
  RateLimiter,
  Transactor
} from "@catalog-sync/core"
import { Api } from "@catalog-sync/contract"
import type { Readiness } from "./System/Readiness.js"
import { Layer } from "effect"
import { AdmissionLive } from "./Admission.js"
import { AuthenticationLive } from "./Authentication.js"
import { CatalogHttpLive } from "./Catalog/Http.js"
import { ChangesHttpLive } from "./Changes/Http.js"
import { EnvelopeMiddleware } from "./Envelope.js"
import { ImportsHttpLive } from "./Imports/Http.js"
import { InventoryHttpLive } from "./Inventory/Http.js"
import { JobsHttpLive } from "./Jobs/Http.js"
import { MeHttpLive } from "./Me/Http.js"
import { MediaHttpLive } from "./Media/Http.js"
import { SystemHttpLive } from "./System/Http.js"

export { AuthFailureBudget } from "./Admission.js"
export { declaresTooLarge } from "./BodyLimit.js"
export {
  addressGroup,
  forwardedHosts,
  fromTrustedProxy,
  isValidHost,
  normalizeAddress,
  parseTrustedProxies,
  type ProxyHeaders,
  proxyHeaderFamilies,
  type ProxySettings,
  TrustedProxies
} from "./ClientOrigin.js"
export { Readiness } from "./System/Readiness.js"

/**
 * The whole HTTP API as a layer, for embedders: handlers, authentication, the error envelope and the
 * OpenAPI document at /api/v1/openapi.json. Needs the core services and ports.
 */
export const ApiLive: Layer.Layer<
  HttpApi.Api,
  never,
  | CatalogService.CatalogService
  | ChangeFeed.ChangeFeed
  | InventoryService.InventoryService
  | ImportService.ImportService
  | JobService.JobService
  | MediaService.MediaService
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
  | Accounts.Accounts
  | RateLimiter.RateLimiter
  | Readiness
> = Layer.mergeAll(EnvelopeMiddleware, HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })).pipe(
  Layer.provideMerge(
    HttpApiBuilder.api(Api).pipe(
      Layer.provide(
        Layer.mergeAll(
          CatalogHttpLive,
          ChangesHttpLive,
          InventoryHttpLive,
          ImportsHttpLive,
          JobsHttpLive,
          MediaHttpLive,
          MeHttpLive,
          SystemHttpLive
        ).pipe(Layer.provide(AuthenticationLive))
      )
    )
  ),
  // One Admission for the Envelope (requests with a body) and the Authentication middleware (the rest).
  Layer.provide(AdmissionLive)
)
