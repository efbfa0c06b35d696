import { HttpApi, OpenApi } from "@effect/platform"
import { ErrorDetail } from "./ApiErrors.js"
import * as ApiErrors from "./ApiErrors.js"
import {
  BrandsApi,
  CategoriesApi,
  CollectionsApi,
  CustomizationGroupsApi,
  CustomizationOptionsApi,
  CustomizationTypesApi,
  ProductsApi
} from "./Catalog/Api.js"
import { ChangesApi } from "./Changes/Api.js"
import { ImportsApi } from "./Imports/Api.js"
import { InventoryApi } from "./Inventory/Api.js"
import { JobsApi } from "./Jobs/Api.js"
import { MeApi } from "./Me/Api.js"
import { MediaApi } from "./Media/Api.js"
import { SystemApi } from "./System/Api.js"
import { documentOpenApi } from "./OpenApiDocument.js"

/** The Catalog Synchronization Integration API v1 contract: one group per resource, under /api/v1. */
export class Api extends HttpApi.make("catalog-sync")
  .add(MeApi)
  .add(ProductsApi)
  .add(CategoriesApi)
  .add(CollectionsApi)
  .add(BrandsApi)
  .add(CustomizationTypesApi)
  .add(CustomizationGroupsApi)
  .add(CustomizationOptionsApi)
  .add(ChangesApi)
  .add(InventoryApi)
  .add(ImportsApi)
  .add(JobsApi)
  .add(MediaApi)
  .prefix("/api/v1")
  .add(SystemApi)
  // Errors any request can meet. 401, 403 and 429 come with Authentication (every group but the probes),
  // 404 and 409 are declared where they can happen (reads by id, writes).
  .addError(ApiErrors.BadRequest)
  .addError(ApiErrors.PayloadTooLarge)
  .addError(ApiErrors.UnsupportedMediaType)
  .addError(ApiErrors.Unprocessable)
  .addError(ApiErrors.RequestTimeout)
  .addError(ApiErrors.RequestHeadersTooLarge)
  .addError(ApiErrors.InternalError)
  .addError(ApiErrors.ServiceUnavailable)
  .annotate(HttpApi.AdditionalSchemas, [ErrorDetail])
  .annotateContext(
    OpenApi.annotations({
      title: "Catalog Synchronization Integration API",
      version: "1.0.0",
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
      // Relative: the API is where the document is served; paths carry the /api/v1 prefix.
      servers: [{ url: "/", description: "This server" }],
      description:
        "Keeps a furniture catalog in sync with an external website or app. Errors use the body {request_id, error: {code, message, details?, retry_after?}}; codes are listed in docs/errors.md.",
      transform: documentOpenApi
    })
  ) {}
