/**
 * Reading and rewriting the generated OpenAPI document: its parts are JSON whose shape the generator
 * decides, so each value is narrowed where it is read instead of being trusted.
 */
import { Predicate } from "effect"

/** A JSON object of the document (an operation, a schema, a response), open to any key. */
export interface JsonObject {
  [key: string]: unknown
}

/** Whether `value` is a JSON object: not null, not an array. */
export const isJsonObject: (value: unknown) => value is JsonObject = Predicate.isObject

/** The value at `path` below `value`, through objects only; `undefined` where a step is missing. */
export const valueAt = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((node, key) => (isJsonObject(node) ? node[key] : undefined), value)

/** The object at `path` below `value`, or `undefined` when there is none. */
export const objectAt = (value: unknown, ...path: ReadonlyArray<string>): JsonObject | undefined => {
  const found = valueAt(value, ...path)
  return isJsonObject(found) ? found : undefined
}

/** The array at `path` below `value`; empty when there is none. */
export const arrayAt = (value: unknown, ...path: ReadonlyArray<string>): ReadonlyArray<unknown> => {
  const found = valueAt(value, ...path)
  return Array.isArray(found) ? found : []
}

/** The values of the object `value` that are objects (the operations of a path item, the responses, ...). */
export const objectsIn = (value: unknown): ReadonlyArray<JsonObject> =>
  isJsonObject(value) ? Object.values(value).filter(isJsonObject) : []

/** What is directly below `value` with its key: an object's entries, an array's items by index, none for a scalar. */
export const entriesBelow = (value: unknown): ReadonlyArray<readonly [string, unknown]> =>
  Predicate.isObjectOrArray(value) ? Object.entries(value) : []
