import { CommonFields, Idempotency, Ids } from "@catalog-sync/core"
import { Schema } from "effect"

/** Strict decoding: the same options as the core body schemas. */
export const strict = CommonFields.strict

/**
 * Documentation of a parameter for the OpenAPI document only. Query and path values arrive as text, so
 * the generated schema would be the wire type (a string, even for a number); `jsonSchema` states what a
 * client sends instead. It changes no decoding and no error message (a `description` annotation would
 * replace "Expected ..." in the messages of some schemas).
 */
export const documented = (jsonSchema: Record<string, unknown>) => ({ jsonSchema })

const sampleUuid = "0b7c3e1a-5f2d-4c8e-9a61-3d2f4b5c6e7f"

/** A uuid in the path or the query, documented inline with what it names. */
export const UuidParameter = (description: string) =>
  Ids.Uuid.annotations(documented({ type: "string", format: "uuid", description, examples: [sampleUuid] }))

/**
 * An `external_id` filter of a list: 1-200 characters of text, as every external_id (core's `ExternalId`),
 * so that a value no record can be mapped to (empty, too long, U+0000, a lone surrogate) is refused at
 * `query.external_id` instead of reaching the database. Composed from a plain string so that the
 * parameter is documented inline (ExternalId has an identifier).
 */
export const ExternalIdParameter = (description: string, example: string) =>
  Schema.String.pipe(Schema.compose(Ids.ExternalId)).annotations(
    documented({ type: "string", minLength: 1, maxLength: 200, description, examples: [example] })
  )

/** The page size of every list and of the change feed when `limit` is omitted (spec 4.1). */
export const defaultLimit = 50

const limitRule = "must be a whole number from 1 to 100"

/**
 * `limit`: a page size, 1-100 (spec 4.1 and 8), `defaultLimit` when omitted. Decimal digits only:
 * `Number` would also read `1e2`, `0x10`, `+5`, `5.0` and ` 50`.
 */
export const Limit = Schema.String.pipe(
  Schema.pattern(/^[0-9]+$/, { message: () => limitRule }),
  Schema.compose(Schema.NumberFromString),
  Schema.int({ message: () => limitRule }),
  Schema.between(1, 100, { message: () => limitRule })
).annotations(
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
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Idempotency.IdempotencyKey.annotations({
    description:
      "8-120 letters, digits or `._:-`, unique per logical write; send the same key on every retry of that write (a completed write is answered again with `replayed: true`).",
    examples: ["erp-product-4711-20250114T0930"]
  })
})
