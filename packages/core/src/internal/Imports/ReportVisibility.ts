import { definitions } from "../../Resources/Registry.js"
import type { Scope } from "../../Shared/Scope.js"
import type { ImportReport, RecordError, RecordResult } from "../../Imports/Import.js"
import { isIssueList } from "./ReportBounds.js"

/** What a reader without the read scope of a price or cost field is told about it: the rule, never the value. */
const hiddenMessage = (scope: Scope) =>
  `is not valid; the message names the value sent, which only a key with ${scope} may read`

/** The read scope a body path needs, when it is a price or cost field of the resource (`$.records[2].body.cost`). */
const scopeOfPath = (record: RecordResult, path: string): Scope | undefined => {
  const match = /^\$\.records\[\d+\]\.body\.([A-Za-z_]+)(.*)$/.exec(path)
  if (match === null) return undefined
  const [, key, rest] = match
  const definition = definitions[record.resource]
  if (definition.priceKeys.includes(key!)) return "prices:read"
  if (definition.costKeys.includes(key!)) return "costs:read"
  // Coefficients are prices (spec 5.9).
  if (key === "fields" && /^\[\d+\]\.coefficient/.test(rest!)) return "prices:read"
  return undefined
}

const visibleError = (record: RecordResult, error: RecordError, scopes: ReadonlySet<Scope>): RecordError => {
  if (!isIssueList(error.details)) return error
  let message = error.message
  const details = error.details.map((issue) => {
    const needed = scopeOfPath(record, issue.path)
    if (needed === undefined || scopes.has(needed)) return issue
    const hidden = hiddenMessage(needed)
    // A rule's message joins its issues' messages: the value leaves it too.
    if (issue.message !== "") message = message.split(issue.message).join(hidden)
    return { path: issue.path, message: hidden }
  })
  // A union's branches each report the path: once hidden, their messages are one.
  const unique = details.filter(
    (issue, i) => details.findIndex((other) => other.path === issue.path && other.message === issue.message) === i
  )
  return { ...error, message, details: unique }
}

/**
 * A report as its reader may see it (spec 2.2 rule 5: fields filtered by read scopes): a message about a
 * price or cost field repeats the value sent, so a reader without prices:read or costs:read gets the
 * path and a message without it.
 */
export const visibleReport = (report: ImportReport, scopes: ReadonlySet<Scope>): ImportReport =>
  scopes.has("prices:read") && scopes.has("costs:read")
    ? report
    : {
        ...report,
        records: report.records.map((record) =>
          record.error === null ? record : { ...record, error: visibleError(record, record.error, scopes) }
        )
      }
