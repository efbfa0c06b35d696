/** Examples of brands: a record, upsert bodies and the 422s particular to brands. */
import type { Brand } from "@catalog-sync/core"
import { at, ids } from "../ExampleData.js"
import { issuesExample } from "../Examples.js"
import { type Body, missingName, type ResourceExamples } from "./ResourceExamples.js"

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

export const brandExamples: ResourceExamples = {
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
}
