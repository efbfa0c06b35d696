import { Schema } from "effect"

/** The seven catalog resources that share the upsert / get / list contract. */
export const ResourceName = Schema.Literals([
  "products",
  "categories",
  "collections",
  "brands",
  "customization-types",
  "customization-groups",
  "customization-options"
]).annotate({ identifier: "ResourceName" })
export type ResourceName = typeof ResourceName.Type

/** Every catalog resource name. */
export const resourceNames: ReadonlyArray<ResourceName> = ResourceName.literals

/** What a Reference may point at: a catalog resource or a media item. */
export type ReferenceTarget = ResourceName | "media"
