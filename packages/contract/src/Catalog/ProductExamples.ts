/** Examples of products: a record, upsert bodies, the price view and the 422s particular to products. */
import type { Product } from "@catalog-sync/core"
import { at, ids } from "../ExampleData.js"
import { issuesExample } from "../Examples.js"
import { type Body, priceInCatalogMode, type ResourceExamples } from "./ResourceExamples.js"

export const productRecord = {
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

const unresolved = issuesExample(
  "A Reference names no record",
  "unresolved_reference",
  '$.category_ids[0]: no categories record external_id "armchairs" in this connection',
  [{ path: "$.category_ids[0]", message: 'no categories record external_id "armchairs" in this connection' }]
)

export const productExamples: ResourceExamples = {
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
}
