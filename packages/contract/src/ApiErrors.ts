/**
 * The spec's error body, declared once per status so that the OpenAPI description and the typed client
 * know every error response: `{ request_id, error: { code, message, details?, retry_after? } }`.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export const ErrorDetail = Schema.Struct({
  code: Schema.String.annotations({ description: "Stable error code; see docs/errors.md." }),
  message: Schema.String,
  details: Schema.optional(Schema.Unknown),
  retry_after: Schema.optional(Schema.Int.annotations({ description: "Seconds to wait before retrying (>= 1)." }))
}).annotations({ identifier: "ErrorDetail" })
export type ErrorDetail = typeof ErrorDetail.Type

const fields = { request_id: Schema.UUID, error: ErrorDetail }

const errorClass = <const Tag extends string>(tag: Tag, status: number, description: string) =>
  Schema.Class<{ readonly request_id: string; readonly error: ErrorDetail } & { readonly _status?: Tag }>(tag)(
    fields,
    HttpApiSchema.annotations({ status, description })
  )

export class BadRequest extends errorClass("BadRequest", 400, "Malformed JSON.") {}
export class Unauthorized extends errorClass("Unauthorized", 401, "Missing, unknown, expired or revoked key; disabled connection, company or subscription.") {}
export class Forbidden extends errorClass("Forbidden", 403, "Scope, company domain, module or stock package not permitted.") {}
export class NotFound extends errorClass("NotFound", 404, "Resource or mapped record not found.") {}
export class Conflict extends errorClass("Conflict", 409, "Revision or idempotency conflict.") {}
export class PayloadTooLarge extends errorClass("PayloadTooLarge", 413, "The body exceeds the allowed size.") {}
export class UnsupportedMediaType extends errorClass("UnsupportedMediaType", 415, "A JSON content type is required.") {}
export class RequestTimeout extends errorClass("RequestTimeout", 408, "The request line, headers or body did not arrive within the server's time-outs; the connection is closed.") {}
export class RequestHeadersTooLarge extends errorClass("RequestHeadersTooLarge", 431, "The request line and headers exceed 16 KB (a very long query string).") {}
export class Unprocessable extends errorClass("Unprocessable", 422, "Validation failed; details lists every failing path.") {}
export class TooManyRequests extends errorClass("TooManyRequests", 429, "Rate or job limit reached; respect Retry-After.") {}
export class InternalError extends errorClass("InternalError", 500, "Unexpected error; retry with the same Idempotency-Key.") {}
export class ServiceUnavailable extends errorClass("ServiceUnavailable", 503, "Database busy; retry with the same Idempotency-Key.") {}

export type ApiError =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | PayloadTooLarge
  | UnsupportedMediaType
  | Unprocessable
  | RequestHeadersTooLarge
  | RequestTimeout
  | TooManyRequests
  | InternalError
  | ServiceUnavailable

const byStatus = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  408: RequestTimeout,
  409: Conflict,
  413: PayloadTooLarge,
  415: UnsupportedMediaType,
  422: Unprocessable,
  429: TooManyRequests,
  431: RequestHeadersTooLarge,
  500: InternalError,
  503: ServiceUnavailable
} as const
export type ErrorStatus = keyof typeof byStatus

export const statusOf = (error: ApiError): ErrorStatus => {
  for (const [status, cls] of Object.entries(byStatus)) if (error instanceof cls) return Number(status) as ErrorStatus
  return 500
}

export const make = (status: ErrorStatus, request_id: string, error: ErrorDetail): ApiError => new byStatus[status]({ request_id, error })

export const isApiError = (u: unknown): u is ApiError => Object.values(byStatus).some((cls) => u instanceof cls)

/** Errors every authenticated endpoint can answer with, besides its own. */
export const common = [BadRequest, Unauthorized, Forbidden, TooManyRequests, Unprocessable, InternalError, ServiceUnavailable] as const
