/** Examples of the catalog endpoints: a body and a record of each resource, and their particular errors. */
import type {
  Brand,
  Category,
  Collection,
  CustomizationGroup,
  CustomizationOption,
  CustomizationType,
  Product,
  Resource,
  Scope
} from "@catalog-sync/core"
import type { Schema } from "effect"
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

type Body<S extends Schema.Schema.Any> = Schema.Schema.Encoded<S>

const productRecord = {
  id: ids.product,
  external_id: "sofa-oslo-3",
  revision: 2,
  translations: { de: { name: "Oslo 3-Sitzer-Sofa", description: "Dreisitzer mit massivem Eichengestell." } },
  created_at: at.created,
  updated_at: at.updated,
  state: "active",
  archived_at: null,
  name: "Oslo 3-seat sofa",
  sku: "OS-3",
  kind: "single",
  active: true,
  category_ids: [ids.category],
  collection_id: ids.collection,
  brand_id: ids.brand,
  details: {
    description: "Three-seat sofa with a solid oak frame and removable covers.",
    width: "228",
    height: "84",
    depth: "95",
    weight: "62.5",
    volume: "1.9"
  },
  unit: "piece",
  components: [],
  media_ids: [ids.image],
  cover_id: ids.image,
  fields: [
    {
      id: ids.field,
      external_id: "main-fabric",
      name: "Main fabric",
      translations: { de: { name: "Hauptstoff" } },
      type_id: ids.type,
      group_ids: [ids.group],
      coefficient: "1"
    }
  ],
  price: "1299.00",
  market_price: "1499.00",
  tax_rate: "20.00",
  tax_model: "inclusive",
  cost: "640.00"
} satisfies Body<typeof Product.Product>

const categoryRecord = {
  id: ids.category,
  external_id: "sofas",
  revision: 1,
  translations: { de: { name: "Sofas", description: "Zwei- und Dreisitzer." } },
  created_at: at.created,
  updated_at: at.created,
  name: "Sofas",
  parent_id: null,
  description: "Two- and three-seat sofas.",
  image_id: null
} satisfies Body<typeof Category.Category>

const collectionRecord = {
  id: ids.collection,
  external_id: "oslo",
  revision: 1,
  translations: { de: { description: "Klare skandinavische Linien." } },
  created_at: at.created,
  updated_at: at.created,
  name: "Oslo",
  description: "Clean Scandinavian lines.",
  image_id: null
} satisfies Body<typeof Collection.Collection>

const brandRecord = {
  id: ids.brand,
  external_id: "nordhem",
  revision: 1,
  translations: {},
  created_at: at.created,
  updated_at: at.created,
  name: "Nordhem",
  description: "Made in Norway since 1962.",
  image_id: null
} satisfies Body<typeof Brand.Brand>

const typeRecord = {
  id: ids.type,
  external_id: "fabric",
  revision: 1,
  translations: { de: { name: "Stoff" } },
  created_at: at.created,
  updated_at: at.created,
  name: "Fabric",
  pricing_scope: "group",
  archived: false
} satisfies Body<typeof CustomizationType.CustomizationType>

const groupRecord = {
  id: ids.group,
  external_id: "book-velvet",
  revision: 1,
  translations: { de: { name: "Samt-Musterbuch" } },
  created_at: at.created,
  updated_at: at.created,
  name: "Velvet swatch book",
  type_id: ids.type,
  active: true,
  photo_enabled: true,
  pricing_mode: "percent",
  pricing_value: "30.00"
} satisfies Body<typeof CustomizationGroup.CustomizationGroup>

const optionRecord = {
  id: ids.option,
  external_id: "velvet-sage",
  revision: 1,
  translations: { de: { name: "Samt Salbei" } },
  created_at: at.created,
  updated_at: at.created,
  name: "Velvet Sage",
  group_id: ids.group,
  code: "VS-12",
  active: true,
  media_id: ids.swatch,
  pricing_mode: "none",
  pricing_value: null
} satisfies Body<typeof CustomizationOption.CustomizationOption>

interface ResourceExamples {
  readonly record: {
    readonly id: string
    readonly revision: number
    readonly updated_at: string
    readonly external_id: string | null
  }
  /** Upsert bodies, the first one a create that succeeds once the records it references exist. */
  readonly bodies: Examples
  /** The price view of `mode=prices` lists, for resources with price fields. */
  readonly prices?: Record<string, unknown>
  /** 422 errors particular to this resource's upsert, besides validation_failed and idempotency_key_invalid. */
  readonly rules: Examples
  /** Scopes of a catalog-mode write. */
  readonly writeScopes: ReadonlyArray<Scope.Scope>
}

const unresolved = issuesExample(
  "A Reference names no record",
  "unresolved_reference",
  '$.category_ids[0]: no categories record external_id "armchairs" in this connection',
  [{ path: "$.category_ids[0]", message: 'no categories record external_id "armchairs" in this connection' }]
)

const missingName = (label: string) =>
  issuesExample("Creating without a name", "missing_required_field", `$.name: name is required to create a ${label}`, [
    { path: "$.name", message: `name is required to create a ${label}` }
  ])

const priceInCatalogMode = issuesExample(
  "A price field in catalog mode",
  "field_not_allowed_in_mode",
  "price cannot be written in catalog mode; use mode prices or combined",
  [{ path: "$.price", message: "price cannot be written in catalog mode; use mode prices or combined" }]
)

export const resourceExamples: Readonly<Record<Resource.ResourceName, ResourceExamples>> = {
  products: {
    record: productRecord,
    bodies: {
      create: {
        summary: "Create a product in an existing category",
        value: {
          external_id: "sofa-oslo-3",
          name: "Oslo 3-seat sofa",
          sku: "OS-3",
          kind: "single",
          category_ids: [{ external_id: "sofas" }],
          details: {
            description: "Three-seat sofa with a solid oak frame and removable covers.",
            width: "228",
            height: "84",
            depth: "95",
            weight: "62.5",
            volume: "1.9"
          },
          unit: "piece",
          translations: { de: { name: "Oslo 3-Sitzer-Sofa", description: "Dreisitzer mit massivem Eichengestell." } }
        } satisfies Body<typeof Product.ProductUpsert>
      },
      combined: {
        summary: "Create with prices, collection, brand, image and a fabric field (mode combined)",
        description:
          "Needs catalog:write, prices:write and, for cost, costs:write. Every Reference may be a uuid or {external_id}.",
        value: {
          external_id: "sofa-oslo-2",
          mode: "combined",
          currency: "EUR",
          name: "Oslo 2-seat sofa",
          sku: "OS-2",
          kind: "single",
          active: false,
          category_ids: [{ external_id: "sofas" }],
          collection_id: { external_id: "oslo" },
          brand_id: { external_id: "nordhem" },
          details: {
            description: "Two-seat sofa with a solid oak frame and removable covers.",
            width: "176",
            height: "84",
            depth: "95",
            weight: "48",
            volume: "1.5"
          },
          unit: "piece",
          media_ids: [{ external_id: "img-sofa-oslo-front" }],
          cover_id: { external_id: "img-sofa-oslo-front" },
          fields: [
            {
              external_id: "main-fabric",
              name: "Main fabric",
              type_id: { external_id: "fabric" },
              group_ids: [{ external_id: "book-velvet" }],
              coefficient: "1",
              translations: { de: { name: "Hauptstoff" } }
            }
          ],
          price: "999.00",
          market_price: "1149.00",
          cost: "480.00",
          tax_rate: "20"
        } satisfies Body<typeof Product.ProductUpsert>
      },
      update: {
        summary: "Rename it: an update sends the revision it read",
        value: {
          external_id: "sofa-oslo-3",
          expected_revision: 1,
          name: "Oslo 3-seat sofa, oak",
          sku: "OS-3-OAK"
        } satisfies Body<typeof Product.ProductUpsert>
      },
      prices: {
        summary: "Set the price only (mode prices)",
        value: { external_id: "sofa-oslo-3", mode: "prices", expected_revision: 2, price: "1299.00" } satisfies Body<
          typeof Product.ProductUpsert
        >
      },
      coefficients: {
        summary: "A price-only key sets a fabric field's coefficient and a price (mode prices)",
        description:
          "Coefficients are prices: a fields entry names the field by id or external_id and carries its coefficient; the field list stays as stored. Catalog fields sent in prices mode (here the name) are preserved and listed in ignored_fields.",
        value: {
          external_id: "sofa-oslo-2",
          mode: "prices",
          expected_revision: 1,
          name: "Oslo 2-seat sofa (from the price list)",
          price: "1049.00",
          fields: [{ external_id: "main-fabric", coefficient: "1.5" }]
        } satisfies Body<typeof Product.ProductUpsert>
      },
      activate: {
        summary: "Activate it once it can be sold (a category and a price)",
        value: { external_id: "sofa-oslo-3", expected_revision: 3, active: true } satisfies Body<
          typeof Product.ProductUpsert
        >
      }
    },
    prices: {
      id: ids.product,
      external_id: "sofa-oslo-3",
      revision: 2,
      updated_at: at.updated,
      price: "1299.00",
      market_price: "1499.00",
      tax_rate: "20.00",
      tax_model: "inclusive",
      cost: "640.00"
    },
    rules: {
      unresolved_reference: unresolved,
      missing_required_field: issuesExample(
        "Creating without a category",
        "missing_required_field",
        "$.category_ids: category_ids is required to create a product",
        [{ path: "$.category_ids", message: "category_ids is required to create a product" }]
      ),
      field_not_allowed_in_mode: priceInCatalogMode,
      sale_validation_failed: issuesExample(
        "Activating a product that cannot be sold as it stands",
        "sale_validation_failed",
        "$.active: an active product needs a price",
        [{ path: "$.active", message: "an active product needs a price" }]
      )
    },
    writeScopes: ["catalog:write"]
  },
  categories: {
    record: categoryRecord,
    bodies: {
      create: {
        summary: "Create a category",
        value: {
          external_id: "sofas",
          name: "Sofas",
          description: "Two- and three-seat sofas.",
          translations: { de: { name: "Sofas", description: "Zwei- und Dreisitzer." } }
        } satisfies Body<typeof Category.CategoryUpsert>
      },
      child: {
        summary: "Create a subcategory under its parent's external_id",
        value: {
          external_id: "corner-sofas",
          name: "Corner sofas",
          parent_id: { external_id: "sofas" }
        } satisfies Body<typeof Category.CategoryUpsert>
      },
      update: {
        summary: "Rename it: an update sends the revision it read",
        value: { external_id: "sofas", expected_revision: 1, name: "Sofas and couches" } satisfies Body<
          typeof Category.CategoryUpsert
        >
      }
    },
    rules: {
      category_cycle: issuesExample(
        "A parent below the category itself",
        "category_cycle",
        "$.parent_id: the parent is a descendant of this category",
        [{ path: "$.parent_id", message: "the parent is a descendant of this category" }]
      ),
      missing_required_field: missingName("category")
    },
    writeScopes: ["catalog:write"]
  },
  collections: {
    record: collectionRecord,
    bodies: {
      create: {
        summary: "Create a collection",
        value: {
          external_id: "oslo",
          name: "Oslo",
          description: "Clean Scandinavian lines.",
          translations: { de: { description: "Klare skandinavische Linien." } }
        } satisfies Body<typeof Collection.CollectionUpsert>
      },
      update: {
        summary: "Change the description: an update sends the revision it read",
        value: {
          external_id: "oslo",
          expected_revision: 1,
          description: "Clean Scandinavian lines in solid oak."
        } satisfies Body<typeof Collection.CollectionUpsert>
      }
    },
    rules: {
      translation_not_allowed: issuesExample(
        "A translated name (collection names are shared)",
        "translation_not_allowed",
        "$.translations.de.name: the collection name is shared across languages",
        [{ path: "$.translations.de.name", message: "the collection name is shared across languages" }]
      ),
      missing_required_field: missingName("collection")
    },
    writeScopes: ["catalog:write"]
  },
  brands: {
    record: brandRecord,
    bodies: {
      create: {
        summary: "Create a brand",
        value: { external_id: "nordhem", name: "Nordhem", description: "Made in Norway since 1962." } satisfies Body<
          typeof Brand.BrandUpsert
        >
      },
      update: {
        summary: "Change the description: an update sends the revision it read",
        value: {
          external_id: "nordhem",
          expected_revision: 1,
          description: "Made in Norway since 1962, FSC-certified wood."
        } satisfies Body<typeof Brand.BrandUpsert>
      }
    },
    rules: {
      translation_not_allowed: issuesExample(
        "A translated name (brand names are shared)",
        "translation_not_allowed",
        "$.translations.de.name: the brand name is shared across languages",
        [{ path: "$.translations.de.name", message: "the brand name is shared across languages" }]
      ),
      missing_required_field: missingName("brand")
    },
    writeScopes: ["catalog:write"]
  },
  "customization-types": {
    record: typeRecord,
    bodies: {
      create: {
        summary: "Create a fabric type (priced per swatch book)",
        value: {
          external_id: "fabric",
          name: "Fabric",
          pricing_scope: "group",
          translations: { de: { name: "Stoff" } }
        } satisfies Body<typeof CustomizationType.CustomizationTypeUpsert>
      },
      update: {
        summary: "Rename it: an update sends the revision it read",
        value: { external_id: "fabric", expected_revision: 1, name: "Upholstery fabric" } satisfies Body<
          typeof CustomizationType.CustomizationTypeUpsert
        >
      }
    },
    rules: {
      invalid_pricing: issuesExample(
        "Changing the pricing scope while the other level carries rules",
        "invalid_pricing",
        `$.pricing_scope: option-level pricing leaves groups without rules, but 1 group carries a pricing rule (${ids.group}); set pricing_mode none there first`,
        [
          {
            path: "$.pricing_scope",
            message: `option-level pricing leaves groups without rules, but 1 group carries a pricing rule (${ids.group}); set pricing_mode none there first`
          }
        ]
      ),
      missing_required_field: missingName("customization type")
    },
    writeScopes: ["catalog:write"]
  },
  "customization-groups": {
    record: groupRecord,
    bodies: {
      create: {
        summary: "Create a swatch book with a 30% surcharge (mode combined)",
        value: {
          external_id: "book-velvet",
          mode: "combined",
          name: "Velvet swatch book",
          type_id: { external_id: "fabric" },
          active: true,
          photo_enabled: true,
          pricing_mode: "percent",
          pricing_value: "30",
          translations: { de: { name: "Samt-Musterbuch" } }
        } satisfies Body<typeof CustomizationGroup.CustomizationGroupUpsert>
      },
      update: {
        summary: "No photos for this book: an update sends the revision it read",
        value: { external_id: "book-velvet", expected_revision: 1, photo_enabled: false } satisfies Body<
          typeof CustomizationGroup.CustomizationGroupUpsert
        >
      }
    },
    prices: {
      id: ids.group,
      external_id: "book-velvet",
      revision: 1,
      updated_at: at.created,
      pricing_mode: "percent",
      pricing_value: "30.00"
    },
    rules: {
      invalid_pricing: issuesExample(
        "A percent rule without a value",
        "invalid_pricing",
        "$.pricing_value: pricing_mode percent needs a pricing_value",
        [{ path: "$.pricing_value", message: "pricing_mode percent needs a pricing_value" }]
      ),
      missing_required_field: issuesExample(
        "Creating without a type",
        "missing_required_field",
        "$.type_id: type_id is required to create a customization group",
        [{ path: "$.type_id", message: "type_id is required to create a customization group" }]
      )
    },
    writeScopes: ["catalog:write"]
  },
  "customization-options": {
    record: optionRecord,
    bodies: {
      create: {
        summary: "Create a fabric sample in its swatch book",
        value: {
          external_id: "velvet-sage",
          name: "Velvet Sage",
          group_id: { external_id: "book-velvet" },
          code: "VS-12",
          active: true,
          media_id: { external_id: "swatch-velvet-sage" },
          translations: { de: { name: "Samt Salbei" } }
        } satisfies Body<typeof CustomizationOption.CustomizationOptionUpsert>
      },
      update: {
        summary: "Change its code: an update sends the revision it read",
        value: { external_id: "velvet-sage", expected_revision: 1, code: "VS-12B" } satisfies Body<
          typeof CustomizationOption.CustomizationOptionUpsert
        >
      }
    },
    prices: {
      id: ids.option,
      external_id: "velvet-sage",
      revision: 1,
      updated_at: at.created,
      pricing_mode: "none",
      pricing_value: null
    },
    rules: {
      invalid_pricing: issuesExample(
        "A price rule on an option of a group-priced type",
        "invalid_pricing",
        "$.pricing_mode: the customization type prices at group level; a option carries pricing_mode none",
        [
          {
            path: "$.pricing_mode",
            message: "the customization type prices at group level; a option carries pricing_mode none"
          }
        ]
      ),
      missing_required_field: issuesExample(
        "Creating without a group",
        "missing_required_field",
        "$.group_id: group_id is required to create a customization option",
        [{ path: "$.group_id", message: "group_id is required to create a customization option" }]
      )
    },
    writeScopes: ["catalog:write"]
  }
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
