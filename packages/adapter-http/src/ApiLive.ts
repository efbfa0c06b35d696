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
import type { Etag, HttpPlatform, HttpRouter } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { FileSystem } from "effect/FileSystem"
import type { Path } from "effect/Path"
import { AdmissionLive } from "./Admission.js"
import { AuthenticationLive } from "./Authentication.js"
import { CatalogFastAnswers, CatalogHttpLive } from "./Catalog/Http.js"
import { ChangesFastAnswers, ChangesHttpLive } from "./Changes/Http.js"
import { FrontController } from "./FrontController.js"
import { FastAnswers } from "./FastAnswer.js"
import { ImportsHttpLive } from "./Imports/Http.js"
import { InventoryHttpLive } from "./Inventory/Http.js"
import { JobsHttpLive } from "./Jobs/Http.js"
import { MeHttpLive } from "./Me/Http.js"
import { MediaHttpLive } from "./Media/Http.js"
import { SystemHttpLive } from "./System/Http.js"
import { openApiPath } from "./RouteTable.js"

/**
 * The whole HTTP API as a layer, for embedders: handlers (and the fast answers of the reads that need
 * one), the front controller (a global middleware of the router: admission, limits, errors, the request
 * log) and the OpenAPI document
 * at /api/v1/openapi.json, added to the `HttpRouter` it is given (serve it with `HttpRouter.serve`). Needs
 * the core services and ports, and the platform services HttpApi asks for (the Node server's layer
 * provides them).
 */
export const ApiLive: Layer.Layer<
  never,
  never,
  | HttpRouter.HttpRouter
  | Etag.Generator
  | FileSystem
  | HttpPlatform.HttpPlatform
  | Path
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
> = Layer.mergeAll(FrontController, HttpApiBuilder.layer(Api, { openapiPath: openApiPath })).pipe(
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
    )
  ),
  Layer.provide(FastAnswers.layer(CatalogFastAnswers, ChangesFastAnswers)),
  // One implementation of the Authentication middleware for the routes and the fast answers.
  Layer.provide(AuthenticationLive),
  // The front controller admits every request that needs a key, once.
  Layer.provide(AdmissionLive)
)
