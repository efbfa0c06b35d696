/** Examples of categories: a record, upsert bodies and the 422s particular to categories. */
import type { Category } from "@catalog-sync/core"
import { at, ids } from "../ExampleData.js"
import { issuesExample } from "../Examples.js"
import { type Body, missingName, type ResourceExamples } from "./ResourceExamples.js"

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

export const categoryExamples: ResourceExamples = {
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
}
