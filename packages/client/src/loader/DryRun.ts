/**
 * A dry run rolls every batch back, so a reference to a record that an earlier batch of the same load
 * would create cannot resolve. Such a failure is not the input's fault: when every unresolved reference
 * of a record names a record (or image) that the input declares, the record counts as deferred, not failed.
 */
import { referencedExternalId } from "./Order.js"

/** External ids declared by the input, per resource (and `media`). */
export type Declared = ReadonlyMap<string, ReadonlySet<string>>

/** The resource a Reference field points to, by the field's name. */
const targets: Readonly<Record<string, string>> = {
  parent_id: "categories",
  category_ids: "categories",
  collection_id: "collections",
  brand_id: "brands",
  product_id: "products",
  media_ids: "media",
  cover_id: "media",
  image_id: "media",
  media_id: "media",
  type_id: "customization-types",
  group_ids: "customization-groups",
  group_id: "customization-groups"
}

/** The value at a record path such as `$.fields[0].group_ids[2]`, and the last field name on the way. */
export const at = (body: unknown, path: string): { readonly value: unknown; readonly field: string | undefined } => {
  let value: unknown = body
  let field: string | undefined
  for (const [, name, index] of path.replace(/^\$/, "").matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) {
    if (name !== undefined) field = name
    if (typeof value !== "object" || value === null) return { value: undefined, field }
    value = name !== undefined ? (value as Record<string, unknown>)[name] : (value as Array<unknown>)[Number(index)]
  }
  return { value, field }
}

/** Whether a record failure only lists references to records the input declares. */
export const deferred = (
  body: unknown,
  error: { readonly code: string; readonly details?: unknown },
  declared: Declared,
  recordPath: (path: string) => string
): boolean => {
  if (error.code !== "unresolved_reference" || !Array.isArray(error.details) || error.details.length === 0) return false
  return error.details.every((detail: unknown) => {
    const path = (detail as { path?: unknown } | null)?.path
    if (typeof path !== "string") return false
    const { value, field } = at(body, recordPath(path))
    const externalId = referencedExternalId(value)
    const target = field === undefined ? undefined : targets[field]
    return externalId !== undefined && target !== undefined && declared.get(target)?.has(externalId) === true
  })
}
