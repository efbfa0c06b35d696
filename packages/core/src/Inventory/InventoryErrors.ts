/**
 * Domain failures of the inventory use cases, each with a stable `code`; adapter-http alone decides the
 * status codes. Unresolved sources, revision conflicts, missing cards and scopes reuse the catalog errors
 * (`unresolved_reference`, `revision_conflict`, `not_found`, `insufficient_scope`).
 */
import { Schema } from "effect"
import { Issue } from "../Shared/Errors.js"

/** The company has no active stock package or no enabled inventory module. */
export class StockNotEnabled extends Schema.TaggedError<StockNotEnabled>()("StockNotEnabled", {
  message: Schema.String
}) {
  get code(): "stock_not_enabled" {
    return "stock_not_enabled"
  }
}

/** The location exists in the company but is not assigned to the caller's connection as writable. */
export class LocationNotWritable extends Schema.TaggedError<LocationNotWritable>()("LocationNotWritable", {
  message: Schema.String,
  location_id: Schema.String
}) {
  get code(): "location_not_writable" {
    return "location_not_writable"
  }
}

/** Stock rules a schema cannot express; `reason` is the stable error code. */
export const StockRuleReason = Schema.Literals([
  "stock_below_zero",
  "quantity_out_of_range",
  "quantity_not_whole",
  "unknown_location",
  "source_not_stocked"
])
export type StockRuleReason = typeof StockRuleReason.Type

/** A well-formed stock write (or admin change) that breaks a stock rule. */
export class StockRuleViolation extends Schema.TaggedError<StockRuleViolation>()("StockRuleViolation", {
  reason: StockRuleReason,
  message: Schema.String,
  issues: Schema.Array(Issue)
}) {
  get code(): StockRuleReason {
    return this.reason
  }
}

/**
 * The write would leave physical stock below what orders have reserved: a conflict with the reservations
 * (spec 7: "409 - reservation conflict"), not invalid input. The client reads the balance again.
 */
export class ReservationConflict extends Schema.TaggedError<ReservationConflict>()("ReservationConflict", {
  message: Schema.String,
  location_id: Schema.String,
  /** The location's reserved quantity. */
  reserved: Schema.String,
  /** The location's physical stock now. */
  physical: Schema.String,
  /** The physical stock the write would have left. */
  requested_physical: Schema.String
}) {
  get code(): "stock_below_reserved" {
    return "stock_below_reserved"
  }
}

/** The event_id was already used for a different write (another body or another connection). */
export class StockEventConflict extends Schema.TaggedError<StockEventConflict>()("StockEventConflict", {
  message: Schema.String,
  event_id: Schema.String
}) {
  get code(): "event_id_reused" {
    return "event_id_reused"
  }
}
