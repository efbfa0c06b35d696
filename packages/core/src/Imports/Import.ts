import { Schema } from "effect"
import { strict } from "../Resources/CommonFields.js"
import { ResourceName } from "../Resources/Resource.js"

/** Records per import (spec 8). */
export const maxRecords = 50

const Outcome = Schema.Literal("created", "updated", "unchanged")

/**
 * A record's body as sent: any JSON object, kept as it is (a copy into a new object would turn a
 * `__proto__` key into a prototype, hiding it from the per-record schema that must refuse it).
 */
const RecordBody = Schema.declare(
  (input: unknown): input is Readonly<Record<string, unknown>> =>
    typeof input === "object" && input !== null && !Array.isArray(input),
  {
    identifier: "ImportRecordBody",
    description:
      "The upsert body of the resource (as POST /{resource}/upsert takes it). A body that breaks its schema fails that record only.",
    message: () => "must be a JSON object: the upsert body of the resource",
    jsonSchema: { type: "object", additionalProperties: true },
    arbitrary: () => (fc) => fc.dictionary(fc.string(), fc.jsonValue())
  }
)

/** One record of an import: the resource and its upsert body (checked per record, spec 2.4 to 2.10). */
export const ImportRecordInput = Schema.Struct({
  resource: ResourceName,
  body: RecordBody
}).annotations({ identifier: "ImportRecord", ...strict })
export type ImportRecordInput = typeof ImportRecordInput.Type

/** POST /imports body (spec 2.12). Unknown keys are refused at every level. */
export const ImportBody = Schema.Struct({
  dry_run: Schema.optionalWith(Schema.Boolean, { exact: true }),
  records: Schema.Array(ImportRecordInput).pipe(
    Schema.minItems(1, { message: () => `must hold 1 to ${maxRecords} records` }),
    Schema.maxItems(maxRecords, { message: () => `must hold 1 to ${maxRecords} records` })
  )
}).annotations({ identifier: "ImportBody", ...strict })
export type ImportBody = typeof ImportBody.Type

/** Why one record failed: the error code and message it would get from its upsert endpoint. */
export const RecordError = Schema.Struct({
  code: Schema.String.annotations({ description: "Stable error code; see docs/errors.md." }),
  message: Schema.String,
  details: Schema.optional(Schema.Unknown).annotations({
    description:
      "As on the upsert endpoint; paths are within the import body: $.records[3].body.category_ids[0]. At most 20 per record, each path and message cut at 300 characters."
  }),
  details_omitted: Schema.optional(Schema.Int).annotations({
    description:
      "How many more details the record had than the report keeps (20 per record, 8 KiB per record's error, 64 KiB for the errors of a report); absent when none were left out."
  })
}).annotations({ identifier: "ImportRecordError" })
export type RecordError = typeof RecordError.Type

/** Where an import record stands. */
export const RecordStatus = Schema.Literal("applied", "failed", "pending")
export type RecordStatus = typeof RecordStatus.Type

/** The result of one record. */
export const RecordResult = Schema.Struct({
  index: Schema.Int.annotations({ description: "Position of the record in the import body, from 0." }),
  resource: ResourceName,
  external_id: Schema.NullOr(Schema.String),
  status: RecordStatus,
  outcome: Schema.NullOr(Outcome).annotations({ description: "For applied records." }),
  id: Schema.NullOr(Schema.UUID).annotations({
    description: "The record written (null for failed records and for creates in a dry run)."
  }),
  error: Schema.NullOr(RecordError),
  run: Schema.Int.annotations({
    description: "The run that produced this result: 1, or the retry that re-ran the record."
  }),
  ignored_fields: Schema.optional(Schema.Array(Schema.String)).annotations({
    description:
      "A prices-mode record: the catalog fields its body carried, preserved rather than applied (paths within the import body)."
  })
}).annotations({ identifier: "ImportRecordResult" })
export type RecordResult = typeof RecordResult.Type

/** The import report: counts and one result per record, in body order. */
export const ImportReport = Schema.Struct({
  dry_run: Schema.Boolean,
  run: Schema.Int,
  total: Schema.Int,
  created: Schema.Int,
  updated: Schema.Int,
  unchanged: Schema.Int,
  failed: Schema.Int,
  pending: Schema.Int,
  rerun: Schema.Array(Schema.Int).annotations({
    description: "Indices of the records the latest retry re-ran (the ones that had failed); empty before any retry."
  }),
  records: Schema.Array(RecordResult)
}).annotations({ identifier: "ImportReport" })
export type ImportReport = typeof ImportReport.Type

/** Builds a report from per-record results. */
export const report = (dryRun: boolean, run: number, records: ReadonlyArray<RecordResult>): ImportReport => {
  const sorted = [...records].sort((a, b) => a.index - b.index)
  const count = (predicate: (r: RecordResult) => boolean) => sorted.filter(predicate).length
  return {
    dry_run: dryRun,
    run,
    total: sorted.length,
    created: count((r) => r.outcome === "created"),
    updated: count((r) => r.outcome === "updated"),
    unchanged: count((r) => r.outcome === "unchanged"),
    failed: count((r) => r.status === "failed"),
    pending: count((r) => r.status === "pending"),
    rerun: run > 1 ? sorted.filter((r) => r.run === run).map((r) => r.index) : [],
    records: sorted
  }
}
