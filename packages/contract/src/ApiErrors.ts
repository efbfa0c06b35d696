/**
 * The spec's error body, declared once per status so that the OpenAPI description and the typed client
 * know every error response: `{ request_id, error: { code, message, details?, retry_after? } }`.
 */
import { Ids } from "@catalog-sync/core"
import { Schema } from "effect"

/**
 * A whole number, documented as `{ type: integer }` as before Effect 4 (whose `Int` also states the
 * safe-integer bounds); it accepts what `Schema.Int` accepts.
 */
const Integer = Schema.Finite.check(
  Schema.makeFilter((n: number) => Number.isSafeInteger(n), {
    expected: "an integer",
    toJsonSchema: () => ({ type: "integer" })
  })
)

/**
 * Free-form details: any JSON value, documented as before Effect 4 (`{ title: "unknown" }`; Effect 4
 * drops the annotations of `Unknown` from the document, not those of `Any`).
 */
const Details: Schema.Codec<unknown> = Schema.Any.annotate({ title: "unknown" })

/** The `error` of an error body: a stable `code`, a message and optional details. */
export const ErrorDetail = Schema.Struct({
  code: Schema.String.annotate({ description: "Stable error code; see docs/errors.md." }),
  message: Schema.String,
  details: Schema.optionalKey(Details),
  retry_after: Schema.optionalKey(
    Integer.annotate({ title: "int", description: "Seconds to wait before retrying (>= 1)." })
  )
}).annotate({ identifier: "ErrorDetail" })
export type ErrorDetail = typeof ErrorDetail.Type

const fields = { request_id: Ids.UUID, error: ErrorDetail }

// The struct carries the identifier too: the document names the body's component after it (not `<tag>Encoded`).
const errorClass =
  <Self>() =>
  (tag: string, status: number, description: string) =>
    Schema.Class<Self>(tag)(Schema.Struct(fields).annotate({ identifier: tag, description }), {
      httpApiStatus: status,
      description
    })

/*
 * The bodies of all statuses have the same fields; each class declares its status as a type-only
 * member, so that the compiler tells them apart and a handler can only fail with the statuses its
 * endpoint declares (see `api` in adapter-http's ErrorResponses).
 */
/** 400: the body or a parameter is malformed. */
export class BadRequest extends errorClass<BadRequest>()("BadRequest", 400, "Malformed JSON.") {
  declare readonly _status?: 400
}
/** 401: no usable credentials. */
export class Unauthorized extends errorClass<Unauthorized>()(
  "Unauthorized",
  401,
  "Missing, unknown, expired or revoked key; disabled connection, company or subscription."
) {
  declare readonly _status?: 401
}
/** 403: the key lacks a scope, or the request is not allowed for it. */
export class Forbidden extends errorClass<Forbidden>()(
  "Forbidden",
  403,
  "Scope, company domain, module or stock package not permitted."
) {
  declare readonly _status?: 403
}
/** 404: no such resource or mapped record. */
export class NotFound extends errorClass<NotFound>()("NotFound", 404, "Resource or mapped record not found.") {
  declare readonly _status?: 404
}
/** 409: a revision or idempotency conflict. */
export class Conflict extends errorClass<Conflict>()("Conflict", 409, "Revision or idempotency conflict.") {
  declare readonly _status?: 409
}
/** 413: the body is over its limit. */
export class PayloadTooLarge extends errorClass<PayloadTooLarge>()(
  "PayloadTooLarge",
  413,
  "The body exceeds the allowed size."
) {
  declare readonly _status?: 413
}
/** 415: the body's content type is not accepted. */
export class UnsupportedMediaType extends errorClass<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  415,
  "A JSON content type is required."
) {
  declare readonly _status?: 415
}
/** 408: the request was not received in time. */
export class RequestTimeout extends errorClass<RequestTimeout>()(
  "RequestTimeout",
  408,
  "The request line, headers or body did not arrive within the server's time-outs; the connection is closed."
) {
  declare readonly _status?: 408
}
/** 431: the request's headers are over their limit. */
export class RequestHeadersTooLarge extends errorClass<RequestHeadersTooLarge>()(
  "RequestHeadersTooLarge",
  431,
  "The request line and headers exceed 16 KB (a very long query string)."
) {
  declare readonly _status?: 431
}
/** 422: the body is well-formed but breaks a rule. */
export class Unprocessable extends errorClass<Unprocessable>()(
  "Unprocessable",
  422,
  "Validation failed; details lists every failing path."
) {
  declare readonly _status?: 422
}
/** 429: over the rate limit. */
export class TooManyRequests extends errorClass<TooManyRequests>()(
  "TooManyRequests",
  429,
  "Rate or job limit reached; respect Retry-After."
) {
  declare readonly _status?: 429
}
/** 500: the server failed. */
export class InternalError extends errorClass<InternalError>()(
  "InternalError",
  500,
  "Unexpected error; retry with the same Idempotency-Key."
) {
  declare readonly _status?: 500
}
/** 503: the server cannot take the request now. */
export class ServiceUnavailable extends errorClass<ServiceUnavailable>()(
  "ServiceUnavailable",
  503,
  "Database busy; retry with the same Idempotency-Key."
) {
  declare readonly _status?: 503
}

/**
 * Errors any request can meet, declared on every endpoint (Effect 4 has no API-wide errors). 401, 403
 * and 429 come with Authentication (every group but the probes), as do 500 and 503 (`serverErrors`,
 * declared on the probes), 404 and 409 are declared where they can happen (reads by id, writes).
 */
export const requestErrors = [
  BadRequest,
  PayloadTooLarge,
  UnsupportedMediaType,
  Unprocessable,
  RequestTimeout,
  RequestHeadersTooLarge
] as const

/** 500 and 503, which Authentication declares for the endpoints it guards. */
export const serverErrors = [InternalError, ServiceUnavailable] as const

/** Any error body of the contract. */
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
/** An HTTP status the contract answers errors with. */
export type ErrorStatus = keyof typeof byStatus

/** The HTTP status of an error body. */
export const statusOf = (error: ApiError): ErrorStatus => {
  for (const [status, cls] of Object.entries(byStatus)) if (error instanceof cls) return Number(status) as ErrorStatus
  return 500
}

/** The error class of a status. */
export type OfStatus<Status extends ErrorStatus> = InstanceType<(typeof byStatus)[Status]>

/** The error body of a status, with its request id, code and message. */
export const make = <Status extends ErrorStatus>(
  status: Status,
  request_id: string,
  error: ErrorDetail
): OfStatus<Status> => new byStatus[status]({ request_id, error }) as OfStatus<Status>

/** Whether a value is one of the contract's error bodies. */
export const isApiError = (u: unknown): u is ApiError => Object.values(byStatus).some((cls) => u instanceof cls)
