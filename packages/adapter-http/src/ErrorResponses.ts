/**
 * How failures become the spec's error body (section 7): every domain error of core through one table
 * keyed by its `_tag` (exhaustive: a domain error without a status does not compile), and `api` to run a
 * use case in a handler with its failures turned into the declared API errors.
 */
import type { DomainError, DomainErrorTag, Errors } from "@catalog-sync/core"
import { BoundedDecode } from "@catalog-sync/core/adapter-support"
import { Effect } from "effect"
import { ApiErrors } from "@catalog-sync/contract"
import { requestId } from "./RequestId.js"

/** A failure as the client will see it: status and the `error` object of the body. */
export interface Rendered<Status extends ApiErrors.ErrorStatus = ApiErrors.ErrorStatus> {
  readonly status: Status
  readonly error: ApiErrors.ErrorDetail
}

/**
 * The status of every domain error, by tag: exhaustive (a domain error without a status does not
 * compile), and each renderer below must answer with the status written here.
 */
interface Statuses {
  readonly ValidationFailed: 422
  readonly RuleViolation: 422
  readonly StockRuleViolation: 422
  readonly ImageRejected: 422
  readonly RemoteUrlNotAccepted: 422
  readonly RevisionConflict: 409
  readonly MappingConflict: 409
  readonly RecordInUse: 409
  readonly ReservationConflict: 409
  readonly StockEventConflict: 409
  readonly RecordArchived: 409
  readonly IdempotencyConflict: 409
  readonly AccountConflict: 409
  readonly MediaVersionConflict: 409
  readonly JobNotRetryable: 409
  readonly RecordNotFound: 404
  readonly ScopeDenied: 403
  readonly DomainNotPermitted: 403
  readonly StockNotEnabled: 403
  readonly LocationNotWritable: 403
  readonly Unauthenticated: 401
  readonly RateLimited: 429
  readonly JobLimitReached: 429
  readonly StagingLimitReached: 429
  readonly UnsupportedImageFormat: 415
  readonly UploadTooLarge: 413
  // A missing object is 404; storage that cannot be reached is 503.
  readonly MediaStorageError: 404 | 503
  readonly PersistenceError: 503
}

type Renderers = {
  readonly [Tag in DomainErrorTag]: (error: Extract<DomainError, { readonly _tag: Tag }>) => Rendered<Statuses[Tag]>
}

/** Longest message of an answer, and longest path or message of one of its details. */
const maxMessage = 1000
const maxDetailText = 300

const bounded = (text: string, max: number) => {
  if (text.length <= max) return text
  // Not between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return `${text.slice(0, end)}…`
}

/**
 * An error's message and its failing locations as an answer lists them: at most `maxIssues`, each path
 * and message bounded (a path may name a key the client sent), and the message saying when more were
 * found. What a client sends cannot make an answer large.
 */
export const issueDetails = (
  message: string,
  issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
): {
  readonly message: string
  readonly details: ReadonlyArray<{ readonly path: string; readonly message: string }>
} => ({
  message:
    bounded(message, maxMessage) +
    (issues.length > BoundedDecode.maxIssues
      ? `; the first ${BoundedDecode.maxIssues} problems are listed, more were omitted`
      : ""),
  details: issues
    .slice(0, BoundedDecode.maxIssues)
    .map((issue) => ({ path: bounded(issue.path, maxDetailText), message: bounded(issue.message, maxDetailText) }))
})

const base = (error: DomainError) => ({ code: error.code as string, message: bounded(error.message, maxMessage) })
const withIssues =
  <Status extends ApiErrors.ErrorStatus>(status: Status) =>
  (error: { readonly issues: ReadonlyArray<Errors.Issue> } & DomainError): Rendered<Status> => ({
    status,
    error: { code: error.code, ...issueDetails(error.message, error.issues) }
  })
const plain =
  <Status extends ApiErrors.ErrorStatus>(status: Status) =>
  (error: DomainError): Rendered<Status> => ({ status, error: base(error) })
const retryLater = (error: { readonly retry_after: number } & DomainError): Rendered<429> => ({
  status: 429,
  error: { ...base(error), retry_after: error.retry_after }
})

const renderers: Renderers = {
  ValidationFailed: withIssues(422),
  RuleViolation: withIssues(422),
  StockRuleViolation: withIssues(422),
  RevisionConflict: (error) => ({
    status: 409,
    error: {
      ...base(error),
      details: { current_revision: error.current_revision, expected_revision: error.expected_revision }
    }
  }),
  MappingConflict: (error) => ({ status: 409, error: { ...base(error), details: { reason: error.reason } } }),
  RecordInUse: (error) => ({ status: 409, error: { ...base(error), details: { bundle_ids: error.bundle_ids } } }),
  ReservationConflict: (error) => ({
    status: 409,
    error: {
      ...base(error),
      details: {
        location_id: error.location_id,
        reserved: error.reserved,
        physical: error.physical,
        requested_physical: error.requested_physical
      }
    }
  }),
  StockEventConflict: (error) => ({ status: 409, error: { ...base(error), details: { event_id: error.event_id } } }),
  RecordArchived: plain(409),
  IdempotencyConflict: plain(409),
  AccountConflict: plain(409),
  RecordNotFound: (error) => ({ status: 404, error: { ...base(error), details: { resource: error.resource } } }),
  ScopeDenied: (error) => ({ status: 403, error: { ...base(error), details: { required: error.required } } }),
  DomainNotPermitted: plain(403),
  StockNotEnabled: plain(403),
  LocationNotWritable: (error) => ({
    status: 403,
    error: { ...base(error), details: { location_id: error.location_id } }
  }),
  Unauthenticated: plain(401),
  RateLimited: retryLater,
  JobLimitReached: retryLater,
  StagingLimitReached: retryLater,
  UnsupportedImageFormat: plain(415),
  ImageRejected: (error) => ({
    status: 422,
    error: { ...base(error), details: [{ path: "$.file", message: error.message }] }
  }),
  RemoteUrlNotAccepted: (error) => ({
    status: 422,
    error: { ...base(error), details: [{ path: error.path, message: error.message }] }
  }),
  MediaVersionConflict: (error) => ({
    status: 409,
    error: { ...base(error), details: { media_id: error.media_id, changed: error.changed } }
  }),
  UploadTooLarge: plain(413),
  MediaStorageError: (error) =>
    error.reason === "not_found"
      ? { status: 404, error: { ...base(error), details: { resource: "media" } } }
      : { status: 503, error: base(error) },
  JobNotRetryable: (error) => ({ status: 409, error: { ...base(error), details: { state: error.state } } }),
  // A database fault is never the client's doing nor a bug: 503 with Retry-After, longer when the storage
  // itself is unusable (I/O error, disk full) than when it is only busy or reconnecting.
  PersistenceError: (error) =>
    error.retryable
      ? {
          status: 503,
          error: {
            ...base(error),
            message: "the database is busy; retry with the same Idempotency-Key",
            retry_after: 1
          }
        }
      : {
          status: 503,
          error: {
            ...base(error),
            message: "the database is unavailable; retry later with the same Idempotency-Key",
            retry_after: 5
          }
        }
}

/** The declared API error a domain error becomes: the class of its status. */
export type ApiErrorOf<E extends DomainError> = E extends { readonly _tag: infer Tag extends DomainErrorTag }
  ? ApiErrors.OfStatus<Statuses[Tag]>
  : never

const tags: ReadonlySet<string> = new Set(Object.keys(renderers))

/** Whether a failure is one of core's domain errors. */
export const isDomainError = (u: unknown): u is DomainError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && tags.has(u._tag)

/** The status and error body of a domain error. */
export const renderDomainError = (error: DomainError): Rendered =>
  (renderers[error._tag] as (error: DomainError) => Rendered)(error)

/** Converts a domain error into the declared API error of its status. */
export const toApiError = <E extends DomainError>(error: E): Effect.Effect<never, ApiErrorOf<E>> =>
  Effect.flatMap(requestId, (id) => {
    const rendered = renderDomainError(error)
    // The class of the status the table gives this error's tag, which is what ApiErrorOf<E> names.
    return Effect.fail(ApiErrors.make(rendered.status, id, rendered.error) as ApiErrorOf<E>)
  })

/**
 * Runs a core effect in a handler, mapping its failures (domain errors only) to the declared API
 * errors of their statuses: a handler compiles only if its endpoint declares every status its use
 * case can fail with.
 */
export const api = <A, E extends DomainError, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, ApiErrorOf<E>, R> =>
  Effect.catch(effect, toApiError)
