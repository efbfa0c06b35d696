import type { JsonSchema } from "effect"
import { arrayAt, entriesBelow, isJsonObject, type JsonObject, objectAt, objectsIn, valueAt } from "./internal/Json.js"

/**
 * Post-processing of the generated OpenAPI document:
 * - the framework's own decode error is replaced by ours;
 * - repeated `$id`s of free-form schemas (which strict 3.1 validators refuse) are removed;
 * - every parameter carries its schema's description, where renderers show it.
 * Where Effect 4 writes schemas differently, the published document keeps the form it always had:
 * - an identified schema described anew where it is used is written there inline (Effect 4 makes it a
 *   component `<identifier>_<n>`);
 * - a bounded integer refers to the component it refines (Effect 4 inlines a refined reference);
 * - a reference described where it is used is `allOf: [reference]` beside the description (Effect 4 makes
 *   the description a second `allOf` member);
 * - a record keyed by a component names its keys by reference (`propertyNames`) and its values under the
 *   empty pattern (Effect 4 writes the key's pattern and closes the object);
 * - object schemas list their required properties also when there are none.
 * 413 and 415 stay on every operation: a body is checked wherever a client sends one.
 */
const stripIds = (node: unknown): void => {
  if (isJsonObject(node) && typeof node.$id === "string" && node.$id.startsWith("/schemas/")) delete node.$id
  for (const [, value] of entriesBelow(node)) stripIds(value)
}

const componentRef = "#/components/schemas/"

/** Properties documented as a reference to the component they refine, beside their bound. */
const boundedNumbers: ReadonlyArray<
  readonly [component: string, property: string, schema: JsonSchema.JsonSchema & { readonly $ref: string }]
> = [
  [
    "ArchiveBody",
    "expected_revision",
    {
      $ref: `${componentRef}Int`,
      description: "a number greater than or equal to 1",
      title: "greaterThanOrEqualTo(1)",
      minimum: 1
    }
  ],
  [
    "ComponentInput",
    "quantity",
    {
      $ref: `${componentRef}Int`,
      description: "a number between 1 and 10000",
      title: "between(1, 10000)",
      minimum: 1,
      maximum: 10000
    }
  ],
  [
    "StockWrite",
    "revision",
    {
      $ref: `${componentRef}NonNegative`,
      description: "0 for a new balance; otherwise the location revision read from the item's balances.",
      title: "int",
      type: "integer"
    }
  ]
]

/** Components that only `boundedNumbers` refer to (`NonNegative`: Effect 3's filter under its `NonNegativeInt`). */
const boundComponents: JsonSchema.Definitions = {
  NonNegative: { type: "number", description: "a non-negative number", title: "nonNegative", minimum: 0 }
}

/** Records keyed by a component: the record's component and its key's. */
const keyedRecords: ReadonlyArray<readonly [record: string, key: string]> = [["Translations", "LanguageCode"]]

const annotationKeys = new Set(["title", "description", "examples", "default", "readOnly", "writeOnly"])

/** `{ allOf: [reference, { description }] }` as `{ allOf: [reference], description }`. */
const describedReferences = (node: unknown): void => {
  const allOf = arrayAt(node, "allOf")
  if (isJsonObject(node) && allOf.length > 1 && typeof valueAt(allOf[0], "$ref") === "string") {
    const annotations = allOf.slice(1).filter(isJsonObject)
    if (
      annotations.length === allOf.length - 1 &&
      annotations.every((member) => Object.keys(member).every((key) => annotationKeys.has(key) && !(key in node)))
    ) {
      node.allOf = [allOf[0]]
      for (const member of annotations) Object.assign(node, member)
    }
  }
  for (const [, value] of entriesBelow(node)) describedReferences(value)
}

const keyRecords = (schemas: JsonObject): void => {
  for (const [name, key] of keyedRecords) {
    const record = objectAt(schemas, name)
    const pattern = valueAt(schemas, key, "pattern")
    const patternProperties = objectAt(record, "patternProperties")
    const values = typeof pattern === "string" ? patternProperties?.[pattern] : undefined
    if (record === undefined || patternProperties === undefined || values === undefined) continue
    if (Object.keys(patternProperties).length !== 1) continue
    delete record.additionalProperties
    record.properties = {}
    record.patternProperties = { "": values }
    record.propertyNames = { $ref: `${componentRef}${key}` }
  }
}

/** Every object schema with properties lists its required ones, also none (Effect 4 leaves `[]` out). */
const listRequired = (node: unknown): void => {
  if (isJsonObject(node) && node.type === "object" && node.properties !== undefined && node.required === undefined)
    node.required = []
  for (const [key, value] of entriesBelow(node)) if (key !== "examples") listRequired(value)
}

/**
 * Effect 4 names the variants of one identifier `Name`, `Name_1`, ... in the order it meets them; the
 * most referenced one is the schema itself and keeps `Name`, the others (the schema described anew
 * where it is used) are written inline at their references.
 */
const inlineCopies = (spec: JsonObject, schemas: JsonObject): void => {
  const variants = new Map<string, Array<string>>()
  for (const name of Object.keys(schemas)) {
    const base = /^(.+)_\d+$/.exec(name)?.[1]
    if (base !== undefined && schemas[base] !== undefined) variants.set(base, [...(variants.get(base) ?? [base]), name])
  }
  if (variants.size === 0) return
  const counts = new Map<string, number>()
  const count = (node: unknown): void => {
    const ref = valueAt(node, "$ref")
    if (typeof ref === "string" && ref.startsWith(componentRef)) {
      const name = ref.slice(componentRef.length)
      counts.set(name, (counts.get(name) ?? 0) + 1)
    }
    for (const [, value] of entriesBelow(node)) count(value)
  }
  count(spec)
  const renamed = new Map<string, string>()
  const copies = new Map<string, JsonObject>()
  for (const [base, names] of variants) {
    const kept = names.reduce((a, b) => ((counts.get(b) ?? 0) > (counts.get(a) ?? 0) ? b : a))
    renamed.set(kept, base)
    for (const name of names) {
      const copy = objectAt(schemas, name)
      if (name !== kept && copy !== undefined) copies.set(name, copy)
    }
    const schema = schemas[kept]
    for (const name of names) delete schemas[name]
    schemas[base] = schema
  }
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (!isJsonObject(node)) return node
    const ref =
      typeof node.$ref === "string" && node.$ref.startsWith(componentRef) ? node.$ref.slice(componentRef.length) : ""
    const copy = copies.get(ref)
    if (copy !== undefined) {
      const { $ref: _, ...siblings } = node
      return visit({ ...structuredClone(copy), ...siblings })
    }
    const target = renamed.get(ref)
    if (target !== undefined) return { ...node, $ref: `${componentRef}${target}` }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)]))
  }
  spec.paths = visit(spec.paths)
  for (const name of Object.keys(schemas)) schemas[name] = visit(schemas[name])
}

export const documentOpenApi = (spec: JsonObject): JsonObject => {
  const schemas = objectAt(spec, "components", "schemas")
  if (schemas !== undefined) {
    inlineCopies(spec, schemas)
    for (const [component, property, bounded] of boundedNumbers) {
      const properties = objectAt(schemas, component, "properties")
      if (properties?.[property] === undefined) continue
      properties[property] = structuredClone(bounded)
      const target = bounded.$ref.slice(componentRef.length)
      const boundComponent = boundComponents[target]
      if (schemas[target] === undefined && boundComponent !== undefined) {
        schemas[target] = structuredClone(boundComponent)
      }
    }
    keyRecords(schemas)
  }
  describedReferences(spec.components)
  describedReferences(spec.paths)
  for (const item of objectsIn(spec.paths)) {
    for (const operation of objectsIn(item)) {
      for (const parameter of arrayAt(operation, "parameters").filter(isJsonObject)) {
        const description = valueAt(parameter, "schema", "description")
        if (parameter.description === undefined && typeof description === "string") parameter.description = description
      }
      const bad = objectAt(operation, "responses", "400")
      const json = objectAt(bad, "content", "application/json")
      if (bad !== undefined && json !== undefined) {
        bad.description =
          "Malformed JSON, a body nested too deep, naming too many different keys or cut off, a Host header that is not host[:port], or a request that is not valid HTTP."
        json.schema = { $ref: "#/components/schemas/BadRequest" }
      }
    }
  }
  const generatedSchemas = objectAt(spec, "components", "schemas")
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete generatedSchemas?.[name]
  stripIds(spec)
  listRequired(spec.components)
  listRequired(spec.paths)
  return spec
}
