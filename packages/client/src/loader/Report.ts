/**
 * Failed records, from an import report (or a refused request) to the report file: one JSON line per
 * record with its input file and line, the resource and external_id, the path within the record, and the
 * error's code and message, so that the user can fix the input and re-send only those (`--retry-failed`).
 */
import { Effect } from "effect"
import { rmSync, writeFileSync } from "node:fs"
import type { InputRecord } from "./Batch.js"
import type { Invalid, MediaInput } from "./Input.js"
import { type Failure, failureId } from "./State.js"

/** A path of an import body (`$.records[3].body.category_ids[0]`) as a path within the record (`$.category_ids[0]`). */
export const recordPath = (path: string): string => path.replace(/^\$\.records\[\d+\]\.body/, "$")

const firstPath = (details: unknown): string | null => {
  if (!Array.isArray(details)) return null
  const path = (details[0] as { path?: unknown } | undefined)?.path
  return typeof path === "string" ? recordPath(path) : null
}

/** `details` with their paths made relative to the record. */
const relativeDetails = (details: unknown): unknown =>
  Array.isArray(details)
    ? details.map((d) =>
        typeof d === "object" && d !== null && typeof (d as { path?: unknown }).path === "string"
          ? { ...d, path: recordPath((d as { path: string }).path) }
          : d
      )
    : details

const externalIdOf = (record: InputRecord): string | undefined => {
  const id = record.body.external_id
  return typeof id === "string" ? id : undefined
}

/** A failed record of a batch, from its error (a report entry's or a refused request's). */
export const recordFailure = (
  record: InputRecord,
  error: { readonly code: string; readonly message: string; readonly details?: unknown }
): Failure => ({
  file: record.position.file,
  line: record.position.line,
  resource: record.resource,
  external_id: externalIdOf(record),
  path: firstPath(error.details),
  code: error.code,
  message: error.message,
  ...(error.details === undefined ? {} : { details: relativeDetails(error.details) })
})

export const invalidFailure = (invalid: Invalid): Failure => ({
  file: invalid.position.file,
  line: invalid.position.line,
  resource: invalid.resource,
  external_id: invalid.externalId,
  path: invalid.path,
  code: "invalid_input",
  message: invalid.message
})

export const mediaFailure = (
  media: MediaInput,
  error: { readonly code: string; readonly message: string; readonly details?: unknown }
): Failure => ({
  file: media.position.file,
  line: media.position.line,
  resource: "media",
  external_id: media.externalId,
  path: null,
  code: error.code,
  message: `${media.file}: ${error.message}`,
  ...(error.details === undefined ? {} : { details: error.details })
})

/**
 * Writes the report file: every failure as a JSON line, by file and line. Nothing failed: no report, and
 * the report of an earlier run (whose failures a retry fixed) is removed, so that no file lists stale failures.
 */
export const write = (path: string, failures: Iterable<Failure>): Effect.Effect<number> =>
  Effect.sync(() => {
    const sorted = Array.from(failures).sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1))
    if (sorted.length === 0) rmSync(path, { force: true })
    else writeFileSync(path, sorted.map((failure) => `${JSON.stringify(failure)}\n`).join(""))
    return sorted.length
  })

/** The failure id of whatever lies on a line (a retry round selects lines that could not be read by it). */
export const lineId = (position: { readonly file: string; readonly line: number }): string =>
  failureId({ ...position, resource: undefined, external_id: undefined })

/** The failure id of a record: its resource and external_id, else its line. */
export const recordId = (record: InputRecord): string =>
  failureId({ ...record.position, resource: record.resource, external_id: externalIdOf(record) })

export const mediaId = (media: MediaInput): string =>
  failureId({ ...media.position, resource: "media", external_id: media.externalId })
