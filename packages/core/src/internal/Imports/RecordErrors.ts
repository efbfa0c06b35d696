import { Effect, type Result } from "effect"
import { decodeUpsert } from "../../Catalog/Decode.js"
import type { UpsertBody } from "../Catalog/WriteHeader.js"
import type {
  MappingConflict,
  RecordArchived,
  RecordNotFound,
  RevisionConflict,
  RuleViolation,
  ScopeDenied,
  ValidationFailed
} from "../../Shared/Errors.js"
import type { RecordError } from "../../Imports/Import.js"
import type { Attempt, PlannedRecord } from "./ImportRunner.js"
import { boundedIssueError } from "./ReportBounds.js"

/** The failures of one record's upsert that fail that record only. */
export type RecordFailure =
  ValidationFailed | RuleViolation | RevisionConflict | RecordNotFound | MappingConflict | RecordArchived | ScopeDenied

const recordTags: ReadonlySet<string> = new Set([
  "ValidationFailed",
  "RuleViolation",
  "RevisionConflict",
  "RecordNotFound",
  "MappingConflict",
  "RecordArchived",
  "ScopeDenied"
])

export const isRecordFailure = (error: unknown): error is RecordFailure =>
  typeof error === "object" && error !== null && "_tag" in error && recordTags.has((error as { _tag: string })._tag)

/** `$.name` of a record's body, as a path within the import body: `$.records[3].body.name`. */
export const bodyPath = (index: number, path: string): string => `$.records[${index}].body${path.replace(/^\$/, "")}`

/** The result of a record that failed, as a pass of the import keeps it (unresolved ones may pass later). */
export const failedAttempt = (index: number, error: RecordFailure): Attempt => ({
  _tag: "Failed",
  error: toRecordError(index, error),
  unresolved: isUnresolvedReference(error)
})

/**
 * A failure as the report shows it: the code, message and details its upsert endpoint would give, within
 * the report's bounds (`ReportBounds`).
 */
export const toRecordError = (index: number, error: RecordFailure): RecordError => {
  const base = { code: error.code as string, message: error.message }
  switch (error._tag) {
    case "ValidationFailed":
    case "RuleViolation":
      return boundedIssueError(base, error.issues, (issue) => ({
        path: bodyPath(index, issue.path),
        message: issue.message
      }))
    case "RevisionConflict":
      return {
        ...base,
        details: { current_revision: error.current_revision, expected_revision: error.expected_revision }
      }
    case "MappingConflict":
      return { ...base, details: { reason: error.reason } }
    case "RecordNotFound":
      return { ...base, details: { resource: error.resource } }
    case "ScopeDenied":
      return { ...base, details: { required: error.required } }
    case "RecordArchived":
      return base
  }
}

/** Only these wait for a later pass: another record of the import may create what they reference. */
export const isUnresolvedReference = (error: RecordFailure): boolean =>
  error._tag === "RuleViolation" && error.reason === "unresolved_reference"

/**
 * Each record's decoded body, decoded on first use and kept: a record tried again in a later pass (or
 * batch) is not validated again.
 */
export const decodedOnce = () => {
  const decoded = new Map<number, Result.Result<UpsertBody, ValidationFailed>>()
  return (record: PlannedRecord): Result.Result<UpsertBody, ValidationFailed> => {
    let body = decoded.get(record.index)
    if (body === undefined) {
      body = decodeUpsert(record.resource, record.body)
      decoded.set(record.index, body)
    }
    return body
  }
}

/** Decodes and upserts one record; the failures that concern this record only become its result. */
export const attempt = <E, R>(
  record: PlannedRecord,
  write: (decoded: UpsertBody) => Effect.Effect<Attempt, E, R>,
  decoded: Result.Result<UpsertBody, ValidationFailed> = decodeUpsert(record.resource, record.body)
) =>
  Effect.fromResult(decoded).pipe(
    Effect.flatMap(write),
    Effect.catch((error) =>
      isRecordFailure(error)
        ? Effect.succeed(failedAttempt(record.index, error))
        : Effect.fail(error as Exclude<E, RecordFailure>)
    )
  )
