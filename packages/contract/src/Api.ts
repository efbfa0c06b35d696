import { HttpApi, OpenApi } from "effect/http-api"
import { ErrorDetail } from "./ApiErrors.js"
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
  .add(
    MeApi,
    ProductsApi,
    CategoriesApi,
    CollectionsApi,
    BrandsApi,
    CustomizationTypesApi,
    CustomizationGroupsApi,
    CustomizationOptionsApi,
    ChangesApi,
    InventoryApi,
    ImportsApi,
    JobsApi,
    MediaApi
  )
  .prefix("/api/v1")
  .add(SystemApi)
  // Errors any request can meet are declared on each endpoint (`ApiErrors.requestErrors`): Effect 4 has
  // no API-wide errors.
  // Unknown query parameters and body keys are refused, as core's strict body schemas do.
  .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error" })
  .annotate(HttpApi.AdditionalSchemas, [ErrorDetail])
  .annotateMerge(
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
