import type { Reference } from "../Shared/Reference.js"
import type { ReferenceTarget } from "../Resources/Resource.js"
import type { Document, ReferenceSlot } from "../Resources/ResourceDefinition.js"

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

const walk = (
  value: unknown,
  pattern: ReadonlyArray<string>,
  at: ReadonlyArray<string | number>,
  out: Array<readonly [ReadonlyArray<string | number>, unknown]>
) => {
  if (value === undefined || value === null) return
  const [head, ...rest] = pattern
  if (head === undefined) {
    out.push([at, value])
    return
  }
  if (head === "*") {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, rest, [...at, i], out))
    return
  }
  if (typeof value === "object") walk((value as Record<string, unknown>)[head], rest, [...at, head], out)
}

/** Every Reference a decoded body carries in the resource's reference slots (null values are not). */
export const findReferences = (body: Document, slots: ReadonlyArray<ReferenceSlot>): ReadonlyArray<FoundReference> =>
  slots.flatMap((slot) => {
    const found: Array<readonly [ReadonlyArray<string | number>, unknown]> = []
    walk(body, slot.path, [], found)
    return found.map(([location, reference]) => ({ location, target: slot.target, reference: reference as Reference }))
  })

const setAt = (value: unknown, location: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  const [head, ...rest] = location
  if (head === undefined) return replacement
  if (Array.isArray(value)) {
    return value.map((item, i) => (i === head ? setAt(item, rest, replacement) : item))
  }
  const record = value as Record<string, unknown>
  return { ...record, [head]: setAt(record[head], rest, replacement) }
}

/** The body with every found Reference replaced by the record id it resolved to. */
export const replaceReferences = (
  body: Document,
  found: ReadonlyArray<FoundReference>,
  resolved: ReadonlyArray<string>
): Document => found.reduce<Document>((doc, ref, i) => setAt(doc, ref.location, resolved[i]) as Document, body)
