import type { Reference } from "../../Shared/Reference.js"
import type { ReferenceTarget } from "../../Resources/Resource.js"
import type { Document, ReferenceSlot } from "../Resources/ResourceDefinition.js"
import { isJsonObject, type JsonObject } from "../json.js"

/** A Reference found in a body, with its concrete location. */
export interface FoundReference {
  readonly location: ReadonlyArray<string | number>
  readonly target: ReferenceTarget
  readonly reference: Reference
}

/** `["fields", 0, "type_id"]` -> `$.fields[0].type_id` */
export const jsonPath = (location: ReadonlyArray<string | number>): string =>
  location.reduce<string>(
    (path, segment) => (typeof segment === "number" ? `${path}[${segment}]` : `${path}.${segment}`),
    "$"
  )

/** Collects the values at `pattern` from `depth` on; `at` is the path so far, copied only for a value found. */
const walk = (
  value: unknown,
  pattern: ReadonlyArray<string>,
  depth: number,
  at: Array<string | number>,
  onFound: (location: ReadonlyArray<string | number>, value: unknown) => void
): void => {
  if (value === undefined || value === null) return
  if (depth === pattern.length) {
    onFound(at.slice(), value)
    return
  }
  const head = pattern[depth]!
  if (head === "*") {
    if (!Array.isArray(value)) return
    for (let i = 0; i < value.length; i++) {
      at.push(i)
      walk(value[i], pattern, depth + 1, at, onFound)
      at.pop()
    }
    return
  }
  if (!isJsonObject(value)) return
  at.push(head)
  walk(value[head], pattern, depth + 1, at, onFound)
  at.pop()
}

/** Every Reference a decoded body carries in the resource's reference slots (null values are not). */
export const findReferences = (body: Document, slots: ReadonlyArray<ReferenceSlot>): ReadonlyArray<FoundReference> => {
  const found: Array<FoundReference> = []
  for (const slot of slots) {
    walk(body, slot.path, 0, [], (location, reference) =>
      found.push({ location, target: slot.target, reference: reference as Reference })
    )
  }
  return found
}

const setAt = (value: unknown, location: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  const [head, ...rest] = location
  if (head === undefined) return replacement
  if (Array.isArray(value)) {
    return value.map((item, i) => (i === head ? setAt(item, rest, replacement) : item))
  }
  // A found location holds an object at each key of its path.
  const record: JsonObject = isJsonObject(value) ? value : {}
  return { ...record, [head]: setAt(record[head], rest, replacement) }
}

/** The body with every found Reference replaced by the record id it resolved to. */
export const replaceReferences = (
  body: Document,
  found: ReadonlyArray<FoundReference>,
  resolved: ReadonlyArray<string>
): Document => found.reduce<Document>((doc, ref, i) => setAt(doc, ref.location, resolved[i]) as Document, body)
