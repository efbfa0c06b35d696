/**
 * Typed reads of the JSON the tests get back. A reply's body is `unknown` until one of these narrows it;
 * each reader takes an optional path (object keys, array indexes) and fails the test with the value it
 * met when the shape is not the one asked for.
 */
import { ApiErrors, Job } from "@catalog-sync/contract"
import { Schema } from "effect"

/** A JSON object whose members are still unknown. */
export type JsonObject = { readonly [key: string]: unknown }

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The member at `path`, or undefined where the path leaves the value. */
export const at = (value: unknown, ...path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>(
    (node, key) =>
      typeof key === "number" ? (Array.isArray(node) ? node[key] : undefined) : isObject(node) ? node[key] : undefined,
    value
  )

const refused = (expected: string, value: unknown, path: ReadonlyArray<string | number>) =>
  new Error(
    `expected ${expected} at $${path.map((key) => (typeof key === "number" ? `[${key}]` : `.${key}`)).join("")}, ` +
      `got ${JSON.stringify(value) ?? String(value)}`
  )

/** The JSON object at `path`. */
export const record = (value: unknown, ...path: ReadonlyArray<string | number>): JsonObject => {
  const found = at(value, ...path)
  if (isObject(found)) return found
  throw refused("an object", found, path)
}

/** The array at `path`. */
export const asArray = (value: unknown, ...path: ReadonlyArray<string | number>): ReadonlyArray<unknown> => {
  const found = at(value, ...path)
  if (Array.isArray(found)) return found
  throw refused("an array", found, path)
}

/** The string at `path`. */
export const str = (value: unknown, ...path: ReadonlyArray<string | number>): string => {
  const found = at(value, ...path)
  if (typeof found === "string") return found
  throw refused("a string", found, path)
}

/** The number at `path`. */
export const num = (value: unknown, ...path: ReadonlyArray<string | number>): number => {
  const found = at(value, ...path)
  if (typeof found === "number") return found
  throw refused("a number", found, path)
}

/** A page's records (`records`, or the array at `path`), each an object. */
export const records = (value: unknown, ...path: ReadonlyArray<string | number>): ReadonlyArray<JsonObject> =>
  asArray(value, ...(path.length === 0 ? ["records"] : path)).map((item) => record(item))

/** The id of the answer's `record` (or of the object at `path`). */
export const idOf = (body: unknown, ...path: ReadonlyArray<string | number>): string =>
  str(body, ...(path.length === 0 ? ["record"] : path), "id")

/** The `error` of the spec's error body, decoded by the contract's schema. */
export const errorOf = (body: unknown): ApiErrors.ErrorDetail =>
  Schema.decodeUnknownSync(ApiErrors.ErrorDetail)(at(body, "error"))

/** The job of a job's answer (`job`), decoded by the contract's schema. */
export const jobOf = (body: unknown): Job.JobRecord => Schema.decodeUnknownSync(Job.JobRecord)(at(body, "job"))

/** The paths of the issues an error body details (`error.details[].path`). */
export const detailPaths = (body: unknown): ReadonlyArray<string> =>
  asArray(errorOf(body).details).map((issue) => str(issue, "path"))
