/**
 * Reading JSON the benchmark did not write (the API's answers, the loader's --json lines): each value is
 * narrowed where it is read, and a value of another type than the one read is an error that names it.
 */
import { Predicate } from "effect"

/** A JSON object: its values are read through the functions below. */
export type JsonObject = { [key: string]: unknown }

export const isJsonObject: (value: unknown) => value is JsonObject = Predicate.isObject

/** The value at `path` below `value`, through objects only; `undefined` where a step is missing. */
export const valueAt = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((node, key) => (isJsonObject(node) ? node[key] : undefined), value)

const typed =
  <A>(type: string, is: (value: unknown) => value is A) =>
  (value: unknown, ...path: ReadonlyArray<string>): A => {
    const found = valueAt(value, ...path)
    if (!is(found)) throw new Error(`expected a ${type} at ${path.join(".") || "the top"} of ${JSON.stringify(value)}`)
    return found
  }

/** The object at `path` below `value`. */
export const objectAt = typed("JSON object", isJsonObject)

/** The string at `path` below `value`. */
export const stringAt = typed("string", Predicate.isString)

/** The number at `path` below `value`. */
export const numberAt = typed("number", Predicate.isNumber)

/** The array at `path` below `value`. */
export const arrayAt = typed("array", (value): value is ReadonlyArray<unknown> => Array.isArray(value))
