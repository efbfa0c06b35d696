import { Schema } from "effect"
import { pricesModeBody } from "../Catalog/Access.js"
import { definitions } from "../../Resources/Registry.js"
import type { Document } from "../Resources/ResourceDefinition.js"
import { ExternalId } from "../../Shared/Ids.js"
import { type RecordResult, report } from "../../Imports/Import.js"
import type { ImportCounts, ImportItem } from "../../Imports/ImportStore.js"
import type { PlannedRecord } from "./ImportRunner.js"
import { modeOf } from "./ImportScopes.js"
import { bodyPath } from "./RecordErrors.js"

/** An import's records as its report and its counts show them. */

const isExternalId = Schema.is(ExternalId)

/**
 * The record's external_id as its report shows it and its row stores it: only a valid one (a record whose
 * external_id is not fails at `$.records[i].body.external_id` anyway), so that a value the database cannot
 * hold (U+0000 on PostgreSQL) or a long one never reaches the store.
 */
export const externalIdOf = (body: Document): string | null =>
  isExternalId(body.external_id) ? body.external_id : null

/** A prices-mode record's catalog fields, preserved rather than applied, as paths within the import body. */
const ignoredFieldsOf = (index: number, resource: PlannedRecord["resource"], body: Document): ReadonlyArray<string> =>
  modeOf(body) === "prices"
    ? pricesModeBody(definitions[resource], body).ignored.map((path) => bodyPath(index, path))
    : []

/** The result with the catalog fields its prices-mode record sent and did not apply. */
export const withIgnored = (result: RecordResult, body: Document): RecordResult => {
  const ignored = result.status === "applied" ? ignoredFieldsOf(result.index, result.resource, body) : []
  return ignored.length > 0 ? { ...result, ignored_fields: ignored } : result
}

/** A stored record's result, as the job's report lists it. */
export const toResult = (item: ImportItem): RecordResult =>
  withIgnored(
    {
      index: item.index,
      resource: item.resource,
      external_id: item.externalId,
      status: item.status,
      outcome: item.outcome,
      id: item.recordId,
      error: item.error,
      run: item.run
    },
    item.body
  )

/** The counts of a job's report. */
export const countsOf = (items: ReadonlyArray<ImportItem>): ImportCounts => {
  const results = report(false, 1, items.map(toResult))
  return {
    total: results.total,
    created: results.created,
    updated: results.updated,
    unchanged: results.unchanged,
    failed: results.failed,
    pending: results.pending
  }
}
