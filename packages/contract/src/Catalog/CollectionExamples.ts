/** Examples of collections: a record, upsert bodies and the 422s particular to collections. */
import type { Collection } from "@catalog-sync/core"
import { at, ids } from "../ExampleData.js"
import { issuesExample } from "../Examples.js"
import { type Body, missingName, type ResourceExamples } from "./ResourceExamples.js"

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

export const collectionExamples: ResourceExamples = {
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
}
