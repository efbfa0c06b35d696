/**
 * The client's failures: every error body of the API becomes a tagged error keyed by its `error.code`,
 * so callers switch on stable codes (`catchTag("RevisionConflict", …)`, `error.code === "not_found"`)
 * instead of on statuses or messages.
 */
import { ApiErrors } from "@catalog-sync/contract"
import { PlainIssues } from "@catalog-sync/contract"
import { Data, Schema } from "effect"
import { HttpClientError } from "effect/http"

/** Every `error.code` listed in docs/errors.md; the server may add codes within v1, hence `string`. */
export type ErrorCode =
  | "validation_failed"
  | "missing_required_field"
  | "unresolved_reference"
  | "category_cycle"
  | "currency_mismatch"
  | "language_not_enabled"
  | "translation_not_allowed"
  | "field_not_allowed_in_mode"
  | "tax_rate_not_configured"
  | "invalid_bundle"
  | "invalid_selection_field"
  | "sale_validation_failed"
  | "invalid_pricing"
  | "revision_conflict"
  | "mapping_conflict"
  | "record_archived"
  | "not_found"
  | "insufficient_scope"
  | "storage_unavailable"
  | "malformed_json"
  | "body_unreadable"
  | "missing_credentials"
  | "invalid_credentials"
  | "key_expired"
  | "key_revoked"
  | "connection_disabled"
  | "company_disabled"
  | "subscription_inactive"
  | "domain_not_permitted"
  | "route_not_found"
  | "idempotency_key_reused"
  | "idempotency_in_progress"
  | "payload_too_large"
  | "unsupported_media_type"
  | "idempotency_key_invalid"
  | "rate_limited"
  | "internal_error"
  | "service_unavailable"
  | "not_ready"
  | (string & {})

interface ErrorFields {
  /** HTTP status of the answer. */
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly details?: unknown
  /** Seconds the server asked to wait (429). */
  readonly retry_after?: number
  /** Share it with support, never the key. */
  readonly request_id: string
}

/** An error answer of the API (spec section 7) other than a revision conflict. */
export class CatalogSyncError extends Data.TaggedError("CatalogSyncError")<ErrorFields> {}

/**
 * `409 revision_conflict`: the record changed since it was read. Read it again, merge (the business
 * policy is the caller's) and retry with `expected_revision = current_revision`.
 */
export class RevisionConflict extends Data.TaggedError("RevisionConflict")<
  ErrorFields & {
    readonly code: "revision_conflict"
    /** The stored revision (0 when nothing is mapped to the external_id yet). */
    readonly current_revision: number
  }
> {}

/** The server could not be reached, or the connection broke, and retries were exhausted. */
export class NetworkError extends Data.TaggedError("NetworkError")<{
  readonly message: string
  readonly cause: unknown
}> {}

/**
 * An answer that is not the API's: a body that does not match the contract, or for example a non-JSON
 * 403 from a network security layer in front of the API (spec section 7). Check `status` and `contentType`.
 */
export class UnexpectedResponse extends Data.TaggedError("UnexpectedResponse")<{
  readonly message: string
  readonly status?: number
  readonly contentType?: string
  readonly cause: unknown
}> {}

/**
 * The request does not match the contract (for example an unknown body property or a too long name):
 * the client checks bodies and parameters with the contract's own schemas and sends nothing. `code` and
 * `details` are what the server would have answered (422 `validation_failed`, one `{path, message}` per
 * failing field, the rule in plain words).
 */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly code: "validation_failed"
  readonly message: string
  readonly details: ReadonlyArray<PlainIssues.PlainIssue>
  readonly cause: unknown
}> {}

const invalidRequest = (error: Schema.SchemaError) => {
  const details = PlainIssues.plainIssues(error)
  return new InvalidRequest({
    code: "validation_failed",
    message: `the request does not match the contract: ${details.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`,
    details,
    cause: error
  })
}

/** What any client call can fail with. */
export type ClientError = CatalogSyncError | RevisionConflict | NetworkError | UnexpectedResponse | InvalidRequest

const statuses: ReadonlyArray<
  readonly [number, new (...args: never) => { readonly request_id: string; readonly error: ApiErrors.ErrorDetail }]
> = [
  [400, ApiErrors.BadRequest],
  [401, ApiErrors.Unauthorized],
  [403, ApiErrors.Forbidden],
  [404, ApiErrors.NotFound],
  [409, ApiErrors.Conflict],
  [413, ApiErrors.PayloadTooLarge],
  [415, ApiErrors.UnsupportedMediaType],
  [422, ApiErrors.Unprocessable],
  [429, ApiErrors.TooManyRequests],
  [500, ApiErrors.InternalError],
  [503, ApiErrors.ServiceUnavailable]
]

const currentRevisionOf = (details: unknown): number => {
  const value =
    typeof details === "object" && details !== null
      ? (details as { current_revision?: unknown }).current_revision
      : undefined
  return typeof value === "number" ? value : 0
}

/** Turns a failure of the derived HttpApiClient (declared error classes, transport, decoding) into a ClientError. */
export const fromRaw = (
  error: unknown,
  trace?: { readonly sent: boolean; readonly status?: number; readonly contentType?: string }
): ClientError => {
  if (
    error instanceof CatalogSyncError ||
    error instanceof RevisionConflict ||
    error instanceof NetworkError ||
    error instanceof UnexpectedResponse ||
    error instanceof InvalidRequest
  ) {
    return error
  }
  for (const [status, cls] of statuses) {
    if (error instanceof cls) {
      const { code, message, details, retry_after } = error.error
      const fields = {
        status,
        message,
        request_id: error.request_id,
        ...(details === undefined ? {} : { details }),
        ...(retry_after === undefined ? {} : { retry_after })
      }
      return code === "revision_conflict"
        ? new RevisionConflict({ ...fields, code, current_revision: currentRevisionOf(details) })
        : new CatalogSyncError({ ...fields, code })
    }
  }
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    // The request could not be sent (transport, encoding, URL): no answer to describe.
    if (reason._tag === "TransportError" || reason._tag === "EncodeError" || reason._tag === "InvalidUrlError")
      return new NetworkError({ message: error.message, cause: error })
    const response = reason.response
    const contentType = response.headers["content-type"]
    return new UnexpectedResponse({
      message: `unexpected ${response.status} answer (${contentType ?? "no content type"}); a non-JSON 403 may come from a network security layer`,
      status: response.status,
      ...(contentType === undefined ? {} : { contentType }),
      cause: error
    })
  }
  if (Schema.isSchemaError(error) && trace?.sent === false) {
    return invalidRequest(error)
  }
  if (trace?.status !== undefined) {
    const contentType = trace.contentType
    return new UnexpectedResponse({
      message: `unexpected ${trace.status} answer (${contentType ?? "no content type"}); a non-JSON 403 may come from a network security layer`,
      status: trace.status,
      ...(contentType === undefined ? {} : { contentType }),
      cause: error
    })
  }
  if (Schema.isSchemaError(error))
    return new UnexpectedResponse({ message: `the answer does not match the contract: ${error.message}`, cause: error })
  return new UnexpectedResponse({ message: String((error as { message?: unknown })?.message ?? error), cause: error })
}
