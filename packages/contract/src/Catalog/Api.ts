import { Ids, RecordView, type Resource, Resources } from "@catalog-sync/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, NotFound, requestErrors } from "../ApiErrors.js"
import { Authentication } from "../Authentication.js"
import { operationDocs } from "../Examples.js"
import { archiveExamples, getExamples, listExamples, upsertExamples } from "./Examples.js"
import {
  documented,
  ExternalIdParameter,
  IdempotencyHeaders,
  Limit,
  PageCursor,
  PathParams,
  strict,
  UuidParameter
} from "../Common.js"

/** Query parameters of every catalog list (spec 4.1). Unknown parameters are refused. */
export const listFields = {
  limit: Schema.optional(Limit),
  cursor: Schema.optional(PageCursor("a record id")),
  external_id: Schema.optional(
    ExternalIdParameter("Only the record this connection mapped to this external_id (1-200 characters).", "ERP-4711")
  ),
  mode: Schema.optional(
    Schema.Literals(["catalog", "prices"]).annotate(
      documented({
        type: "string",
        enum: ["catalog", "prices"],
        description:
          "prices: only identity and price fields (needs prices:read; a price-only key reads prices this way).",
        default: "catalog"
      })
    )
  )
}

/** The query of a catalog list (`limit`, `cursor`, filters). */
export const ListQuery = Schema.Struct(listFields).annotate(strict)

/** The query of `GET /products`: the list query and the product filters. */
export const ProductListQuery = Schema.Struct({
  ...listFields,
  category_id: Schema.optional(UuidParameter("Only products in this category.")),
  collection_id: Schema.optional(UuidParameter("Only products of this collection.")),
  brand_id: Schema.optional(UuidParameter("Only products of this brand.")),
  active: Schema.optional(
    Schema.Literals(["true", "false"]).annotate(
      documented({
        type: "string",
        enum: ["true", "false"],
        description: "Only active (true) or only inactive (false) products."
      })
    )
  )
}).annotate(strict)

/** What a write did to a record. */
export const Outcome = Schema.Literals(["created", "updated", "unchanged"])

/** The response of a single-record read or write: the request id and the record. */
export const RecordResponse = <S extends Schema.Top>(record: S) => Schema.Struct({ request_id: Ids.UUID, record })

/** A record as `mode=prices` returns it: identity and the price fields the caller may read. */
export const PriceRecord = RecordView.PriceRecord

/** A write answers with the full record, or with its price view for a key without catalog:read. */
export const WriteResponse = <S extends Schema.Top>(record: S) =>
  Schema.Struct({
    request_id: Ids.UUID,
    outcome: Outcome,
    record: Schema.Union([record, PriceRecord]),
    ignored_fields: Schema.optionalKey(
      Schema.Array(Schema.String).annotate({
        description:
          "Prices mode: the catalog fields the body carried, which were preserved rather than applied (JSON paths, e.g. $.name)."
      })
    ),
    replayed: Schema.optionalKey(Schema.Boolean)
  })

/** The response of a list: a page of records and the next cursor. */
export const ListResponse = <S extends Schema.Top>(record: S) =>
  Schema.Struct({
    request_id: Ids.UUID,
    change_cursor: Schema.optionalKey(
      Schema.String.annotate({ description: "On the first page: start GET /changes here." })
    ),
    records: Schema.Array(Schema.Union([record, PriceRecord])),
    next_cursor: Schema.NullOr(Ids.UUID),
    has_more: Schema.Boolean
  })

/** The endpoints every catalog resource has: list, read one, upsert (spec 4.2). */
export const catalogGroup = <
  const Name extends string,
  Body extends Schema.Codec<unknown, unknown>,
  Record extends Schema.Codec<unknown, unknown>
>(
  name: Name,
  definition: {
    readonly name: Resource.ResourceName
    readonly label: string
    readonly body: Body
    readonly record: Record
  },
  description: string
) => {
  const { name: resource, label } = definition
  const query = resource === "products" ? ProductListQuery : ListQuery
  const idPath = PathParams(`The ${label}'s id.`)
  return HttpApiGroup.make(name)
    .annotate(
      OpenApi.Description,
      `${description} Records are created and updated by external_id (POST /${resource}/upsert), read by id and listed in cursor pages.`
    )
    .add(
      HttpApiEndpoint.get("list", `/${resource}`, {
        query,
        success: ListResponse(definition.record),
        error: requestErrors
      })
        .annotate(OpenApi.Summary, `List ${resource}`)
        .annotate(
          OpenApi.Description,
          `A cursor page of ${resource} in id order. catalog:read, or prices:read with mode=prices.`
        )
        .annotate(OpenApi.Transform, operationDocs(listExamples(resource), query)),
      HttpApiEndpoint.get("get", `/${resource}/:id`, {
        params: idPath,
        success: RecordResponse(definition.record),
        error: [...requestErrors, NotFound]
      })
        .annotate(OpenApi.Summary, `Read one ${label}`)
        .annotate(
          OpenApi.Description,
          `The ${label} with this id in the caller's company. Price fields need prices:read, cost costs:read; a key without catalog:read reads prices through the list with mode=prices.`
        )
        .annotate(OpenApi.Transform, operationDocs(getExamples(resource, label), idPath)),
      HttpApiEndpoint.post("upsert", `/${resource}/upsert`, {
        headers: IdempotencyHeaders,
        payload: definition.body,
        success: WriteResponse(definition.record),
        error: [...requestErrors, NotFound, Conflict]
      })
        .annotate(OpenApi.Summary, `Create or update a ${label} by external_id`)
        .annotate(
          OpenApi.Description,
          `Creates the ${label} the first time this connection sends its external_id, then updates it: send the revision you read as expected_revision (409 revision_conflict otherwise). Omitted fields stay as they are; null clears a nullable field; a sent array replaces the whole list. A retry with the same Idempotency-Key and body answers the first result again (replayed: true).`
        )
        .annotate(OpenApi.Transform, operationDocs(upsertExamples(resource, label), IdempotencyHeaders))
    )
    .middleware(Authentication)
}

/** The body of an archive: the revision the caller last saw. */
export const ArchiveBody = Schema.Struct({
  expected_revision: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be a whole number >= 1" }))
}).annotate({ identifier: "ArchiveBody", ...strict })

const archivePath = PathParams("The product's id.")

/** The products endpoints. */
export const ProductsApi = catalogGroup(
  "products",
  Resources.definitions.products,
  "Products: single products and bundles, with categories, collection, brand, dimensions, images, selection fields (fabric choices) and, with the price scopes, prices and cost."
).add(
  HttpApiEndpoint.delete("archive", "/products/:id", {
    params: archivePath,
    headers: IdempotencyHeaders,
    payload: ArchiveBody,
    success: WriteResponse(Resources.definitions.products.record),
    error: [...requestErrors, NotFound, Conflict]
  })
    .annotate(OpenApi.Summary, "Archive a product (soft)")
    .annotate(
      OpenApi.Description,
      "Sets the product's state to archived with the revision you read; existing quotations and sales are unchanged. A product that live bundles list as a component is refused (409 record_in_use)."
    )
    .annotate(OpenApi.Transform, operationDocs(archiveExamples, archivePath, IdempotencyHeaders))
    .middleware(Authentication)
)
/** The categories endpoints. */
export const CategoriesApi = catalogGroup(
  "categories",
  Resources.definitions.categories,
  "Categories, in a tree (parent_id); names and descriptions may be translated."
)
/** The collections endpoints. */
export const CollectionsApi = catalogGroup(
  "collections",
  Resources.definitions.collections,
  "Collections (product lines); the name is shared across languages, the description may be translated."
)
/** The brands endpoints. */
export const BrandsApi = catalogGroup(
  "brands",
  Resources.definitions.brands,
  "Brands; the name is shared across languages, the description may be translated."
)
/** The customization types endpoints. */
export const CustomizationTypesApi = catalogGroup(
  "customizationTypes",
  Resources.definitions["customization-types"],
  "Customization types (e.g. fabric): whether the group (swatch book) or the option (sample) carries the price rule. Import types, then groups, then options."
)
/** The customization groups endpoints. */
export const CustomizationGroupsApi = catalogGroup(
  "customizationGroups",
  Resources.definitions["customization-groups"],
  "Customization groups: swatch books of a type, with their pricing rule (none, percent, fixed)."
)
/** The customization options endpoints. */
export const CustomizationOptionsApi = catalogGroup(
  "customizationOptions",
  Resources.definitions["customization-options"],
  "Customization options: the fabric samples of a group, with a code and a swatch image."
)
