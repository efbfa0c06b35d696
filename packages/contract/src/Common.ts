import { CommonFields, Idempotency, Ids } from "@catalog-sync/core"
import { type JsonSchema, Schema, SchemaAST } from "effect"
import { arrayAt, isJsonObject, type JsonObject } from "./internal/Json.js"

/** Strict decoding: the same options as the core body schemas. */
export const strict = CommonFields.strict

/** The annotation that carries a parameter's documented JSON Schema (see `documented`). */
const parameterSchemaKey = "catalogSyncParameterSchema"

/**
 * Documentation of a parameter for the OpenAPI document only. Query and path values arrive as text, so
 * the generated schema would be the wire type (a string, even for a number); `jsonSchema` states what a
 * client sends instead. It changes no decoding and no error message (a `description` annotation would
 * replace "Expected ..." in the messages of some schemas). Effect 4 has no annotation that replaces a
 * schema's whole JSON Schema, so `documentParameters` writes it into the operation.
 */
export const documented = (jsonSchema: JsonSchema.JsonSchema) => ({ [parameterSchemaKey]: jsonSchema })

const documentedOf = (ast: SchemaAST.AST): JsonSchema.JsonSchema | undefined => {
  const own = SchemaAST.resolveAt<unknown>(parameterSchemaKey)(ast)
  if (isJsonObject(own)) return own
  // An optional field is a union with undefined: the documentation is on its other member.
  if (SchemaAST.isUnion(ast)) {
    for (const member of ast.types) {
      const found = documentedOf(member)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * The `OpenApi.Transform` part that documents an operation's parameters: each parameter of these
 * structs with a `documented` annotation gets that schema.
 */
export const documentParameters = (...structs: ReadonlyArray<Schema.Struct<Schema.Struct.Fields> | undefined>) => {
  const docs = new Map<string, JsonSchema.JsonSchema>()
  for (const struct of structs) {
    if (struct === undefined) continue
    for (const [name, field] of Object.entries(struct.fields)) {
      const doc = documentedOf(field.ast)
      if (doc !== undefined) docs.set(name, doc)
    }
  }
  return (operation: JsonObject): JsonObject => {
    if (!Array.isArray(operation.parameters) || docs.size === 0) return operation
    const parameters = arrayAt(operation, "parameters").map((parameter) => {
      if (!isJsonObject(parameter)) return parameter
      const doc = typeof parameter.name === "string" ? docs.get(parameter.name) : undefined
      return doc === undefined ? parameter : { ...parameter, schema: doc }
    })
    return { ...operation, parameters }
  }
}

const sampleUuid = "0b7c3e1a-5f2d-4c8e-9a61-3d2f4b5c6e7f"

/** A uuid in the path or the query, documented inline with what it names. */
export const UuidParameter = (description: string) =>
  Ids.Uuid.annotate(documented({ type: "string", format: "uuid", description, examples: [sampleUuid] }))

/**
 * An `external_id` filter of a list: 1-200 characters of text, as every external_id (core's `ExternalId`),
 * so that a value no record can be mapped to (empty, too long, U+0000, a lone surrogate) is refused at
 * `query.external_id` instead of reaching the database. Composed from a plain string so that the
 * parameter is documented inline (ExternalId has an identifier).
 */
export const ExternalIdParameter = (description: string, example: string) =>
  Schema.String.pipe(Schema.decodeTo(Ids.ExternalId)).annotate(
    documented({ type: "string", minLength: 1, maxLength: 200, description, examples: [example] })
  )

/** The page size of every list and of the change feed when `limit` is omitted (spec 4.1). */
export const defaultLimit = 50

const limitRule = "must be a whole number from 1 to 100"

/**
 * `limit`: a page size, 1-100 (spec 4.1 and 8), `defaultLimit` when omitted. Decimal digits only:
 * `Number` would also read `1e2`, `0x10`, `+5`, `5.0` and ` 50`.
 */
export const Limit = Schema.String.check(Schema.isPattern(/^[0-9]+$/, { message: limitRule }))
  .pipe(
    Schema.decodeTo(Schema.NumberFromString),
    Schema.check(
      Schema.isInt({ message: limitRule }),
      Schema.isBetween({ minimum: 1, maximum: 100 }, { message: limitRule })
    )
  )
  .annotate(
    documented({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: defaultLimit,
      description: `Page size, 1-100 (default ${defaultLimit}).`
    })
  )

/** `cursor` of the uuid-keyed lists: the previous page's `next_cursor`. */
export const PageCursor = (what: string) =>
  UuidParameter(`next_cursor of the previous page (${what}); omit it for the first page.`)

/** `{id}` path parameter: a record uuid. A value that is not a uuid is answered 404 not_found. */
export const PathParams = (description: string) => Schema.Struct({ id: UuidParameter(description) })

/** Every POST and DELETE needs an Idempotency-Key (spec 7, rule 2). */
const idempotencyKeyDoc = {
  description:
    "8-120 letters, digits or `._:-`, unique per logical write; send the same key on every retry of that write (a completed write is answered again with `replayed: true`).",
  examples: ["erp-product-4711-20250114T0930"]
}

/** The headers of every POST and DELETE: the Idempotency-Key. */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Idempotency.IdempotencyKey.annotate({
    ...idempotencyKeyDoc,
    // Effect 4 leaves the pattern out of a header parameter's schema.
    ...documented({ type: "string", ...idempotencyKeyDoc, pattern: "^[A-Za-z0-9._:-]{8,120}$" })
  })
})
