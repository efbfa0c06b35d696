/** A JSON object whose keys the code holding it does not know (a body as sent, a document, an answer). */
export type JsonObject = Readonly<Record<string, unknown>>

/** A JSON object being built key by key (a view, a copy). */
export type JsonObjectBuilder = Record<string, unknown>

/** Whether `value` is a JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Structural equality of JSON values; object key order does not matter. */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false
  const ak = Object.keys(a).filter((k) => a[k] !== undefined)
  const bk = Object.keys(b).filter((k) => b[k] !== undefined)
  return ak.length === bk.length && ak.every((k) => jsonEqual(a[k], b[k]))
}
