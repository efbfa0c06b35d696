/**
 * Examples of the catalog endpoints (list, get, upsert, archive) built from each resource's examples
 * (`<Resource>Examples.ts`): a body and a record of each resource, and their particular errors.
 */
import type { Resource } from "@catalog-sync/core"
import { at, ids } from "../ExampleData.js"
import {
  errorExample,
  exampleRequestId,
  type Examples,
  idempotencyConflicts,
  idempotencyKeyInvalid,
  issuesExample,
  type OperationExamples
} from "../Examples.js"
import { brandExamples } from "./BrandExamples.js"
import { categoryExamples } from "./CategoryExamples.js"
import { collectionExamples } from "./CollectionExamples.js"
import {
  customizationGroupExamples,
  customizationOptionExamples,
  customizationTypeExamples
} from "./CustomizationExamples.js"
import { productExamples, productRecord } from "./ProductExamples.js"
import { priceInCatalogMode, type ResourceExamples } from "./ResourceExamples.js"

export const resourceExamples: Readonly<Record<Resource.ResourceName, ResourceExamples>> = {
  products: productExamples,
  categories: categoryExamples,
  collections: collectionExamples,
  brands: brandExamples,
  "customization-types": customizationTypeExamples,
  "customization-groups": customizationGroupExamples,
  "customization-options": customizationOptionExamples
}

const revisionConflict = (label: string, record: ResourceExamples["record"]) =>
  errorExample("expected_revision is not the stored revision", {
    code: "revision_conflict",
    message: `${label} ${record.id} is at revision ${record.revision}, not 1`,
    details: { current_revision: record.revision, expected_revision: 1 }
  })

const notFound = (resource: Resource.ResourceName, label: string): Examples => ({
  not_found: errorExample("No such record in this company", {
    code: "not_found",
    message: `no ${label} ${ids.unknown} in this company`,
    details: { resource }
  }),
  not_a_uuid: errorExample("An id that is not a uuid", {
    code: "not_found",
    message: "no record has that id (ids are uuids)",
    details: [{ path: "$.id", message: "must be a uuid" }]
  })
})

export const listExamples = (resource: Resource.ResourceName): OperationExamples => {
  const examples = resourceExamples[resource]
  const page = (records: ReadonlyArray<unknown>) => ({
    request_id: exampleRequestId,
    change_cursor: "c2_2bq",
    records,
    next_cursor: examples.record.id,
    has_more: true
  })
  return {
    scopes: ["catalog:read"],
    responses: {
      200: {
        page: { summary: "A page; follow next_cursor while has_more", value: page([examples.record]) },
        ...(examples.prices === undefined
          ? {}
          : { prices: { summary: "mode=prices: identity and price fields", value: page([examples.prices]) } }),
        last: {
          summary: "The last page",
          value: { request_id: exampleRequestId, records: [examples.record], next_cursor: null, has_more: false }
        }
      },
      422: {
        validation_failed: issuesExample("limit outside 1-100", "validation_failed", "query parameters are not valid", [
          { path: "query.limit", message: "must be a whole number from 1 to 100" }
        ]),
        unknown_parameter: issuesExample(
          "A query parameter the list does not take",
          "validation_failed",
          "query parameters are not valid",
          [{ path: "query.page", message: "is not an allowed property" }]
        )
      }
    }
  }
}

export const getExamples = (resource: Resource.ResourceName, label: string): OperationExamples => ({
  scopes: ["catalog:read"],
  responses: {
    200: {
      record: {
        summary: `One ${label}`,
        value: { request_id: exampleRequestId, record: resourceExamples[resource].record }
      }
    },
    404: notFound(resource, label)
  }
})

export const upsertExamples = (resource: Resource.ResourceName, label: string): OperationExamples => {
  const examples = resourceExamples[resource]
  // A new product starts inactive (spec 3).
  const created =
    resource === "products"
      ? { ...productRecord, revision: 1, state: "inactive", active: false, updated_at: at.created }
      : examples.record
  return {
    scopes: examples.writeScopes,
    request: examples.bodies,
    responses: {
      200: {
        created: {
          summary: "Created (revision 1)",
          value: { request_id: exampleRequestId, outcome: "created", record: created }
        },
        updated: {
          summary: "Updated: the revision went up",
          value: { request_id: exampleRequestId, outcome: "updated", record: { ...examples.record, revision: 2 } }
        },
        replayed: {
          summary: "A retry with the same Idempotency-Key and body: the first answer again",
          value: { request_id: exampleRequestId, outcome: "created", record: created, replayed: true }
        },
        ...(resource === "products"
          ? {
              prices: {
                summary:
                  "Prices mode for a key without catalog:read: the price view, and the catalog fields that were preserved",
                value: {
                  request_id: exampleRequestId,
                  outcome: "updated",
                  record: {
                    id: ids.product,
                    external_id: "sofa-oslo-2",
                    revision: 2,
                    updated_at: at.updated,
                    fields: [{ id: ids.field, external_id: "main-fabric", coefficient: "1.5" }],
                    price: "1049.00",
                    market_price: "1149.00",
                    tax_rate: "20.00",
                    tax_model: "inclusive"
                  },
                  ignored_fields: ["$.name"]
                }
              }
            }
          : {})
      },
      404: {
        not_found: errorExample("target_id names no record of this company", {
          code: "not_found",
          message: `no ${label} ${ids.unknown} in this company (target_id)`,
          details: { resource }
        })
      },
      409: {
        revision_conflict: revisionConflict(label, { ...examples.record, revision: 2 }),
        mapping_conflict: errorExample("target_id would move an established mapping", {
          code: "mapping_conflict",
          message: `external_id "${examples.record.external_id}" is mapped to ${examples.record.id}; an established mapping cannot move to ${ids.unknown}`,
          details: { reason: "mapping_cannot_move" }
        }),
        ...(resource === "products"
          ? {
              record_archived: errorExample("A write to an archived product", {
                code: "record_archived",
                message: `product ${ids.product} is archived and cannot be changed`
              })
            }
          : {}),
        ...idempotencyConflicts
      },
      422: {
        validation_failed: issuesExample(
          "The body does not match the schema",
          "validation_failed",
          "the body is not valid",
          [
            { path: "$.colour", message: "is not an allowed property" },
            { path: "$.external_id", message: "must be 1-200 characters of well-formed text" }
          ]
        ),
        ...examples.rules,
        ...(resource === "products"
          ? {}
          : { field_not_allowed_in_mode: { ...priceInCatalogMode, summary: "A price field in catalog mode" } }),
        ...idempotencyKeyInvalid
      }
    }
  }
}

export const archiveExamples: OperationExamples = {
  scopes: ["catalog:write"],
  request: { archive: { summary: "Archive with the revision read", value: { expected_revision: 2 } } },
  responses: {
    200: {
      archived: {
        summary: "Archived (soft): state archived, revision +1",
        value: {
          request_id: exampleRequestId,
          outcome: "updated",
          record: {
            ...productRecord,
            revision: 3,
            state: "archived",
            active: false,
            archived_at: at.later,
            updated_at: at.later
          }
        }
      }
    },
    404: notFound("products", "product"),
    409: {
      revision_conflict: revisionConflict("product", productRecord),
      record_in_use: errorExample("Live bundles list the product", {
        code: "record_in_use",
        message: `product ${ids.product} is a component of bundle ${ids.importedProduct}; remove it from that bundle (or archive it) first`,
        details: { bundle_ids: [ids.importedProduct] }
      }),
      ...idempotencyConflicts
    },
    422: {
      validation_failed: issuesExample(
        "expected_revision missing or below 1",
        "validation_failed",
        "the body is not valid",
        [{ path: "$.expected_revision", message: "must be a whole number >= 1" }]
      ),
      ...idempotencyKeyInvalid
    }
  }
}
