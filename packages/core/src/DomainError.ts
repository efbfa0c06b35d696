/**
 * Every failure a use case of core can end a request with. Each has a stable `code` (the spec's
 * `error.code`); adapter-http maps each `_tag` to a status in one exhaustive table, so a new error
 * that is added here without a status does not compile, and a use case failing with an error not
 * listed here cannot be handed to the HTTP layer.
 */
import type { AccountConflict } from "./Auth/Accounts.js"
import type { DomainNotPermitted, Unauthenticated } from "./Auth/AuthErrors.js"
import type { IdempotencyConflict } from "./Idempotency/Idempotency.js"
import type {
  LocationNotWritable,
  ReservationConflict,
  StockEventConflict,
  StockNotEnabled,
  StockRuleViolation
} from "./Inventory/InventoryErrors.js"
import type { JobLimitReached, JobNotRetryable } from "./Jobs/JobErrors.js"
import type {
  ImageRejected,
  MediaStorageError,
  MediaVersionConflict,
  RemoteUrlNotAccepted,
  StagingLimitReached,
  UnsupportedImageFormat,
  UploadTooLarge
} from "./Media/MediaErrors.js"
import type { RateLimited } from "./RateLimit/RateLimiter.js"
import type {
  MappingConflict,
  PersistenceError,
  RecordArchived,
  RecordInUse,
  RecordNotFound,
  RevisionConflict,
  RuleViolation,
  ScopeDenied,
  ValidationFailed
} from "./Shared/Errors.js"

/** Any failure of a use case that the API answers with an error body. */
export type DomainError =
  | ValidationFailed
  | RuleViolation
  | RevisionConflict
  | RecordNotFound
  | MappingConflict
  | RecordArchived
  | RecordInUse
  | ScopeDenied
  | PersistenceError
  | Unauthenticated
  | DomainNotPermitted
  | AccountConflict
  | IdempotencyConflict
  | RateLimited
  | JobLimitReached
  | JobNotRetryable
  | StockNotEnabled
  | LocationNotWritable
  | StockRuleViolation
  | ReservationConflict
  | StockEventConflict
  | UnsupportedImageFormat
  | ImageRejected
  | RemoteUrlNotAccepted
  | MediaVersionConflict
  | StagingLimitReached
  | UploadTooLarge
  | MediaStorageError

/** The `_tag` of a `DomainError`. */
export type DomainErrorTag = DomainError["_tag"]
