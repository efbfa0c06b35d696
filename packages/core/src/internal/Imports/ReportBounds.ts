import type { Issue } from "../../Shared/Errors.js"
import type { RecordError } from "../../Imports/Import.js"

/**
 * How much of a failed record's error an import report keeps. A body within the request limit can break
 * its schema thousands of times (one issue per unknown property), and a report repeats what the client
 * sent (property names in paths): unbounded, 50 such records made a 5.6 MB report, stored and answered
 * on every poll.
 */
export const reportBounds = {
  /** Details (issues) kept per record; how many more there were is `details_omitted`. */
  detailsPerRecord: 20,
  /** Characters kept of a detail's path and of its message. */
  detailChars: 300,
  /** Characters of a record's message; a longer one is rebuilt from the details kept. */
  messageChars: 1000,
  /** UTF-8 bytes of one record's error as JSON: details are dropped from the end until it fits. */
  recordBytes: 8 * 1024,
  /** UTF-8 bytes of every record's error of one report: past them, records keep their code alone. */
  reportBytes: 64 * 1024
} as const

export const isIssueList = (details: unknown): details is ReadonlyArray<Issue> =>
  Array.isArray(details) &&
  details.every(
    (d) => typeof d === "object" && d !== null && typeof d.path === "string" && typeof d.message === "string"
  )

/** `text` cut to `max` characters with an ellipsis, never inside a surrogate pair. */
export const truncate = (text: string, max: number): string => {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? "") ? max - 2 : max - 1
  return `${text.slice(0, end)}…`
}

/** UTF-8 bytes of `value` as JSON (JSON.stringify escapes control characters and lone surrogates). */
export const jsonBytes = (value: unknown): number => {
  const text = JSON.stringify(value) ?? ""
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

const boundIssue = (issue: Issue): Issue => ({
  path: truncate(issue.path, reportBounds.detailChars),
  message: truncate(issue.message, reportBounds.detailChars)
})

/**
 * A record's error built from its issues, kept within `reportBounds`: at most `detailsPerRecord` details
 * (fewer when they pass `recordBytes`), each path and message cut, and `details_omitted` counting the
 * rest. A message past `messageChars` (a rule's message joins its issues) is rebuilt from the details
 * kept, so that each value it names is a detail's message too and a reader without the field's read
 * scope can have it hidden (ReportVisibility).
 */
export const boundedIssueError = (
  base: { readonly code: string; readonly message: string },
  issues: ReadonlyArray<Issue>,
  toDetail: (issue: Issue) => Issue
): RecordError => {
  const kept = issues.slice(0, reportBounds.detailsPerRecord).map(boundIssue)
  const build = (count: number): RecordError => {
    const shown = kept.slice(0, count)
    const omitted = issues.length - count
    const message =
      base.message.length <= reportBounds.messageChars
        ? base.message
        : `${shown.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}${omitted > 0 ? `; and ${omitted} more` : ""}`
    return {
      code: base.code,
      message,
      details: shown
        .map(toDetail)
        .map((detail) => ({ ...detail, path: truncate(detail.path, reportBounds.detailChars) })),
      ...(omitted > 0 ? { details_omitted: omitted } : {})
    }
  }
  let count = kept.length
  let error = build(count)
  while (count > 0 && jsonBytes(error) > reportBounds.recordBytes) error = build(--count)
  return error
}

/** An error with its details left out: its code and a message that names no value sent. */
const withoutDetails = (error: RecordError): RecordError => {
  const omitted = isIssueList(error.details)
    ? error.details.length + (error.details_omitted ?? 0)
    : error.details === undefined
      ? 0
      : 1
  return {
    code: error.code,
    message: `the record failed with ${error.code}; its details are left out, as this report's errors reached ${reportBounds.reportBytes} bytes`,
    ...(omitted > 0 ? { details_omitted: omitted } : {})
  }
}

/**
 * The errors of a report's records, in index order, within `reportBytes` together: from the first one
 * that would pass it on, each keeps its code and a plain message.
 */
export const boundReportErrors = <R extends { readonly error: RecordError | null }>(
  records: ReadonlyArray<R>
): ReadonlyArray<R> => {
  let used = 0
  let spent = false
  return records.map((record) => {
    if (record.error === null) return record
    if (!spent) {
      used += jsonBytes(record.error)
      spent = used > reportBounds.reportBytes
      if (!spent) return record
    }
    return { ...record, error: withoutDetails(record.error) }
  })
}
