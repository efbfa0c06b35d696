import type { ErrorDetail, ErrorStatus } from "./ApiErrors.js"

/** A failure as the client will see it: status and the `error` object of the body. */
export interface Rendered {
  readonly status: ErrorStatus
  readonly error: ErrorDetail
}

const tagged = (u: unknown): u is { readonly _tag: string; readonly message: string; readonly code: string } & Record<string, unknown> =>
  typeof u === "object" && u !== null && "_tag" in u && "code" in u && typeof (u as { code: unknown }).code === "string"

/**
 * The one place where domain failures of core become HTTP statuses and error bodies. Anything not
 * listed here is a bug and becomes a 500 without internals.
 */
export const renderDomainError = (error: unknown): Rendered | undefined => {
  if (!tagged(error)) return undefined
  const base = { code: error.code, message: error.message }
  switch (error._tag) {
    case "ValidationFailed":
    case "RuleViolation":
    case "StockRuleViolation":
      return { status: 422, error: { ...base, details: error.issues } }
    case "RevisionConflict":
      return {
        status: 409,
        error: { ...base, details: { current_revision: error.current_revision, expected_revision: error.expected_revision } }
      }
    case "MappingConflict":
      return { status: 409, error: { ...base, details: { reason: error.reason } } }
    case "RecordInUse":
      return { status: 409, error: { ...base, details: { bundle_ids: error.bundle_ids } } }
    case "ReservationConflict":
      return {
        status: 409,
        error: { ...base, details: { location_id: error.location_id, reserved: error.reserved, physical: error.physical, requested_physical: error.requested_physical } }
      }
    case "StockEventConflict":
      return { status: 409, error: { ...base, details: { event_id: error.event_id } } }
    case "RecordArchived":
    case "IdempotencyConflict":
    case "AccountConflict":
      return { status: 409, error: base }
    case "RecordNotFound":
      return { status: 404, error: { ...base, details: { resource: error.resource } } }
    case "ScopeDenied":
      return { status: 403, error: { ...base, details: { required: error.required } } }
    case "DomainNotPermitted":
    case "StockNotEnabled":
      return { status: 403, error: base }
    case "LocationNotWritable":
      return { status: 403, error: { ...base, details: { location_id: error.location_id } } }
    case "Unauthenticated":
      return { status: 401, error: base }
    case "RateLimited":
    case "JobLimitReached":
      return { status: 429, error: { ...base, retry_after: error.retry_after as number } }
    case "UnsupportedImageFormat":
      return { status: 415, error: base }
    case "ImageRejected":
      return { status: 422, error: { ...base, details: [{ path: "$.file", message: error.message }] } }
    case "RemoteUrlNotAccepted":
      return { status: 422, error: { ...base, details: [{ path: error.path as string, message: error.message }] } }
    case "MediaVersionConflict":
      return { status: 409, error: { ...base, details: { media_id: error.media_id, changed: error.changed } } }
    case "StagingLimitReached":
      return { status: 429, error: { ...base, retry_after: error.retry_after as number } }
    case "UploadTooLarge":
      return { status: 413, error: base }
    case "MediaStorageError":
      return error.reason === "not_found" ? { status: 404, error: { ...base, details: { resource: "media" } } } : { status: 503, error: base }
    case "JobNotRetryable":
      return { status: 409, error: { ...base, details: { state: error.state } } }
    case "PersistenceError":
      // A database fault is never the client's doing nor a bug: 503 with Retry-After, longer when the
      // storage itself is unusable (I/O error, disk full) than when it is only busy or reconnecting.
      return error.retryable === true
        ? { status: 503, error: { ...base, message: "the database is busy; retry with the same Idempotency-Key", retry_after: 1 } }
        : { status: 503, error: { ...base, message: "the database is unavailable; retry later with the same Idempotency-Key", retry_after: 5 } }
    default:
      return undefined
  }
}
