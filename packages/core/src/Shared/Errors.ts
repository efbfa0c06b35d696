/**
 * Domain failures of the catalog use cases. Each carries a stable `code` (the `error.code` clients switch
 * on); adapter-http alone decides the status codes.
 */
import { Schema } from "effect"
import { Scope } from "./Scope.js"

/** One failing location of a request body: a JSON path such as `$.category_ids[0]` and why it failed. */
export const Issue = Schema.Struct({
  path: Schema.String,
  message: Schema.String
})
export type Issue = typeof Issue.Type

/** The body does not match the resource's schema (types, lengths, patterns, unknown keys). */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  message: Schema.String,
  issues: Schema.Array(Issue)
}) {
  get code(): "validation_failed" {
    return "validation_failed"
  }
}

/** Rules that a schema cannot express; `reason` is the stable error code. */
export const RuleReason = Schema.Literals([
  "missing_required_field",
  "unresolved_reference",
  "category_cycle",
  "currency_mismatch",
  "language_not_enabled",
  "translation_not_allowed",
  "field_not_allowed_in_mode",
  "tax_rate_not_configured",
  "invalid_bundle",
  "invalid_selection_field",
  "sale_validation_failed",
  "invalid_pricing"
])
export type RuleReason = typeof RuleReason.Type

/** A body that is well-formed but breaks a catalog rule. */
export class RuleViolation extends Schema.TaggedError<RuleViolation>()("RuleViolation", {
  reason: RuleReason,
  message: Schema.String,
  issues: Schema.Array(Issue)
}) {
  get code(): RuleReason {
    return this.reason
  }
}

/** The update did not carry the stored revision; the client must read the record again. */
export class RevisionConflict extends Schema.TaggedError<RevisionConflict>()("RevisionConflict", {
  message: Schema.String,
  current_revision: Schema.Number,
  expected_revision: Schema.NullOr(Schema.Number)
}) {
  get code(): "revision_conflict" {
    return "revision_conflict"
  }
}

/** The record (by id, external_id or target_id) does not exist in the caller's company. */
export class RecordNotFound extends Schema.TaggedError<RecordNotFound>()("RecordNotFound", {
  message: Schema.String,
  resource: Schema.String
}) {
  get code(): "not_found" {
    return "not_found"
  }
}

/**
 * A mapping cannot be made: an established mapping would move to another record, or the record is
 * already mapped by this connection under another external_id.
 */
export class MappingConflict extends Schema.TaggedError<MappingConflict>()("MappingConflict", {
  message: Schema.String,
  reason: Schema.Literals(["mapping_cannot_move", "record_already_mapped", "external_id_taken"])
}) {
  get code(): "mapping_conflict" {
    return "mapping_conflict"
  }
}

/** Archived records are read-only in v1. */
export class RecordArchived extends Schema.TaggedError<RecordArchived>()("RecordArchived", {
  message: Schema.String
}) {
  get code(): "record_archived" {
    return "record_archived"
  }
}

/** A product cannot be archived while live bundles list it among their components. */
export class RecordInUse extends Schema.TaggedError<RecordInUse>()("RecordInUse", {
  message: Schema.String,
  bundle_ids: Schema.Array(Schema.String)
}) {
  get code(): "record_in_use" {
    return "record_in_use"
  }
}

/** The key lacks a scope the operation needs. */
export class ScopeDenied extends Schema.TaggedError<ScopeDenied>()("ScopeDenied", {
  message: Schema.String,
  required: Schema.Array(Scope)
}) {
  get code(): "insufficient_scope" {
    return "insufficient_scope"
  }
}

/** A transient storage failure (busy, connection lost). Safe to retry with the same idempotency key. */
export class PersistenceError extends Schema.TaggedError<PersistenceError>()("PersistenceError", {
  message: Schema.String,
  retryable: Schema.Boolean
}) {
  get code(): "storage_unavailable" {
    return "storage_unavailable"
  }
}
