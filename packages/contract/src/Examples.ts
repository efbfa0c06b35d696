/**
 * Examples of the OpenAPI document: each endpoint declares its request and success examples and the
 * errors particular to it next to its contract (`<Group>/Examples.ts`); the errors every endpoint
 * shares (401, 413, 429, 500, ...) are written once here. `operationExamples` turns them into the
 * operation's `examples` (OpenAPI Example Objects, which renderers offer in a list and code generators
 * ignore), through the endpoint's `OpenApi.Transform` annotation: the generator has no other place for
 * them. Every declared error status of an operation gets at least one example, or building the document
 * fails. `openapi.test.ts` checks every example against the schemas the server decodes with.
 */
import type { Scope } from "@catalog-sync/core"
import type { Schema } from "effect"
import type { ErrorDetail } from "./ApiErrors.js"
import { documentParameters } from "./Common.js"
import { arrayAt, type JsonObject, objectAt, objectsIn, valueAt } from "./internal/Json.js"

export interface Example<A = unknown> {
  readonly summary: string
  readonly description?: string
  readonly value: A
}

/** Named examples: the first one is what renderers show (and send) by default. */
export type Examples<A = unknown> = Readonly<Record<string, Example<A>>>

export interface ErrorBody {
  readonly request_id: string
  readonly error: ErrorDetail
}

/** The request id of every example: a uuid as the server sends it (also in X-Request-Id). */
export const exampleRequestId = "5b8f0c3e-2a41-4d7e-9c6b-1f3a2e4d5c6b"

export const errorExample = (summary: string, error: ErrorDetail): Example<ErrorBody> => ({
  summary,
  value: { request_id: exampleRequestId, error }
})

/** A 422 body as the server writes it: one `{path, message}` per failing location. */
export const issuesExample = (
  summary: string,
  code: string,
  message: string,
  issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
) => errorExample(summary, { code, message, details: issues })

export interface OperationExamples {
  /** Request body examples; for multipart bodies the form fields, with the file as text. */
  readonly request?: Examples
  /** Success examples by status, and errors particular to the operation (e.g. 404, 409, 422). */
  readonly responses: Readonly<Partial<Record<number, Examples>>>
  /**
   * The scopes the operation needs, for the 403 example (`insufficient_scope`); none: any valid key,
   * whose only 403 is a custom domain of another company.
   */
  readonly scopes?: ReadonlyArray<Scope.Scope>
}

const unauthorized: Examples<ErrorBody> = {
  missing_credentials: errorExample("No Authorization header", {
    code: "missing_credentials",
    message: "send Authorization: Bearer <API key>"
  }),
  key_expired: errorExample("The key's lifetime has passed", {
    code: "key_expired",
    message: "the API key expired at 2025-04-14T09:30:00.000Z"
  })
}

const forbidden = (scopes: ReadonlyArray<Scope.Scope> | undefined): Examples<ErrorBody> =>
  scopes === undefined || scopes.length === 0
    ? {
        domain_not_permitted: errorExample("Another company's custom domain", {
          code: "domain_not_permitted",
          message: "requests through catalog.other-company.example must use that company's key"
        })
      }
    : {
        insufficient_scope: errorExample("The key lacks a scope", {
          code: "insufficient_scope",
          message: `this operation needs the scopes ${scopes.join(", ")}`,
          details: { required: scopes }
        })
      }

/** Every write shares these conflicts: they come from its Idempotency-Key. */
export const idempotencyConflicts: Examples<ErrorBody> = {
  idempotency_key_reused: errorExample("The Idempotency-Key was used for another request", {
    code: "idempotency_key_reused",
    message: "this Idempotency-Key was used for a different request; use a new key for a new operation"
  }),
  idempotency_in_progress: errorExample("A request with this key is still running", {
    code: "idempotency_in_progress",
    message: "a request with this Idempotency-Key is still running; retry it later with the same key"
  })
}

export const idempotencyKeyInvalid: Examples<ErrorBody> = {
  idempotency_key_invalid: errorExample("No Idempotency-Key, or not 8-120 of A-Z a-z 0-9 . _ : -", {
    code: "idempotency_key_invalid",
    message: "send an Idempotency-Key header matching ^[A-Za-z0-9._:-]{8,120}$"
  })
}

/** The only 422 of an operation without a body or query parameters: a query name no object may hold. */
const unsafeQueryName: Examples<ErrorBody> = {
  validation_failed: issuesExample(
    "A query parameter this operation does not take",
    "validation_failed",
    "query parameters are not valid",
    [{ path: "query.__proto__", message: "is not an allowed property" }]
  )
}

/** The limits every request with a key meets: its key's and company's rate, and its address's invalid keys. */
export const rateLimited: Examples<ErrorBody> = {
  rate_limited: errorExample("More than 120 requests of this key in the current minute", {
    code: "rate_limited",
    message: "rate limit of 120 requests per minute reached; retry after 17 s",
    retry_after: 17
  }),
  authentication_throttled: errorExample("Too many invalid keys from this address in the current minute", {
    code: "authentication_throttled",
    message: "too many invalid API keys from this address; retry after 42 s",
    retry_after: 42
  })
}

/** Statuses whose examples every operation shares, unless it declares its own. */
const shared = (
  operation: JsonObject,
  scopes: ReadonlyArray<Scope.Scope> | undefined
): Readonly<Partial<Record<number, Examples<ErrorBody>>>> => {
  const json = valueAt(operation, "requestBody", "content", "application/json") !== undefined
  const multipart = valueAt(operation, "requestBody", "content", "multipart/form-data") !== undefined
  return {
    400: json
      ? {
          malformed_json: errorExample("The body is not JSON", {
            code: "malformed_json",
            message: "the body is not valid JSON: Expected property name or '}' in JSON at position 1"
          })
        }
      : {
          malformed_request: errorExample("Not valid HTTP/1.1", {
            code: "malformed_request",
            message: "the request is not valid HTTP/1.1 (its framing or a header could not be read)"
          })
        },
    401: unauthorized,
    403: forbidden(scopes),
    409: idempotencyConflicts,
    413: multipart
      ? {
          payload_too_large: errorExample("The image exceeds 10 MB", {
            code: "payload_too_large",
            message: "images are limited to 10 MB"
          })
        }
      : {
          payload_too_large: errorExample("The body exceeds 1 MB", {
            code: "payload_too_large",
            message: "JSON bodies are limited to 1048576 bytes"
          })
        },
    415: multipart
      ? {
          unsupported_media_type: errorExample("Not multipart/form-data", {
            code: "unsupported_media_type",
            message: "send the upload as multipart/form-data"
          })
        }
      : {
          unsupported_media_type: errorExample("A body that is not application/json", {
            code: "unsupported_media_type",
            message: "send the body as application/json"
          })
        },
    422: arrayAt(operation, "parameters").some(
      (p) => valueAt(p, "in") === "header" && valueAt(p, "name") === "idempotency-key"
    )
      ? idempotencyKeyInvalid
      : unsafeQueryName,
    408: {
      request_timeout: errorExample("The request arrived too slowly", {
        code: "request_timeout",
        message: "the request line, headers or body arrived too slowly; the connection is closed"
      })
    },
    429: rateLimited,
    431: {
      request_headers_too_large: errorExample("Request line and headers over 16 KB", {
        code: "request_headers_too_large",
        message: "the request line and headers exceed 16 KB; send long filters in fewer or shorter parameters"
      })
    },
    500: {
      internal_error: errorExample("A bug: share the request_id", {
        code: "internal_error",
        message: "an unexpected error occurred; retry with the same Idempotency-Key"
      })
    },
    503: {
      storage_unavailable: errorExample("The database is busy", {
        code: "storage_unavailable",
        message: "the database is busy; retry with the same Idempotency-Key",
        retry_after: 1
      })
    }
  }
}

const toExampleObjects = (examples: Examples): JsonObject =>
  Object.fromEntries(
    Object.entries(examples).map(([name, { summary, description, value }]) => [
      name,
      { summary, ...(description === undefined ? {} : { description }), value }
    ])
  )

/**
 * The `OpenApi.Transform` of an endpoint: writes its examples into the request body and into every
 * declared response. A declared status without an example is an error in the contract.
 */
export const operationExamples =
  (examples: OperationExamples) =>
  (operation: JsonObject): JsonObject => {
    const op = structuredClone(operation)
    if (examples.request !== undefined) {
      const contents = objectsIn(valueAt(op, "requestBody", "content"))
      if (contents.length === 0) throw new Error(`${op.operationId}: request examples for an operation without a body`)
      for (const content of contents) content.examples = toExampleObjects(examples.request)
    }
    const common = shared(op, examples.scopes)
    for (const [status, response] of Object.entries(objectAt(op, "responses") ?? {})) {
      const own = examples.responses[Number(status)]
      const chosen = own ?? (Number(status) >= 400 ? common[Number(status)] : undefined)
      if (chosen === undefined) throw new Error(`${op.operationId}: no example for the ${status} response`)
      const content = objectAt(response, "content", "application/json")
      // Binary answers (the image content) carry no JSON example.
      if (content !== undefined) content.examples = toExampleObjects(chosen)
    }
    for (const status of Object.keys(examples.responses)) {
      if (valueAt(op, "responses", status) === undefined)
        throw new Error(`${op.operationId}: an example for ${status}, which the operation does not declare`)
    }
    return op
  }

/**
 * The `OpenApi.Transform` of an endpoint: its documented parameters (the path, query and header
 * structs it decodes; see `Common.documented`), then its examples.
 */
export const operationDocs =
  (examples: OperationExamples, ...parameters: ReadonlyArray<Schema.Struct<Schema.Struct.Fields> | undefined>) =>
  (operation: JsonObject): JsonObject =>
    operationExamples(examples)(documentParameters(...parameters)(operation))
