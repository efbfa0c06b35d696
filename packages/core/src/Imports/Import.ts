import { Schema, SchemaTransformation } from "effect"
import { Int, strict } from "../Resources/CommonFields.js"
import { ResourceName } from "../Resources/Resource.js"
import { UUID } from "../Shared/Ids.js"
import { maxItemsDocs } from "../internal/Shared/ListDocs.js"
import type { JsonObject } from "../internal/json.js"

/** Records per import (spec 8). */
export const maxRecords = 50

const Outcome = Schema.Literals(["created", "updated", "unchanged"])

/**
 * A record's body as sent: any JSON object, kept as it is (a copy into a new object would turn a
 * `__proto__` key into a prototype, hiding it from the per-record schema that must refuse it).
 */
const recordBodyDocumentation = {
  identifier: "ImportRecordBody",
  description:
    "The upsert body of the resource (as POST /{resource}/upsert takes it). A body that breaks its schema fails that record only."
}

const isRecordBody = (input: unknown): input is JsonObject =>
  typeof input === "object" && input !== null && !Array.isArray(input)

const recordBodyMessage = "must be a JSON object: the upsert body of the resource"

const RecordBody = Schema.declare(isRecordBody, {
  ...recordBodyDocumentation,
  message: recordBodyMessage,
  // Its JSON form: any object, kept as it is (no copy), documented as one that may have any keys. Over
  // `Any`, which the JSON codec leaves as it is (it would give `Unknown` a JSON encoding of its own).
  toCodecJson: () =>
    Schema.link<JsonObject>()(
      Schema.Any.check(
        Schema.makeFilter(isRecordBody, {
          message: recordBodyMessage,
          toJsonSchema: () => ({ type: "object", additionalProperties: true })
        })
      ).annotate(recordBodyDocumentation),
      SchemaTransformation.passthrough()
    )
})

/** One record of an import: the resource and its upsert body (checked per record, spec 2.4 to 2.10). */
export const ImportRecordInput = Schema.Struct({
  resource: ResourceName,
  body: RecordBody
}).annotate({ identifier: "ImportRecord", ...strict })
export type ImportRecordInput = typeof ImportRecordInput.Type

/** POST /imports body (spec 2.12). Unknown keys are refused at every level. */
export const ImportBody = Schema.Struct({
  dry_run: Schema.optionalKey(Schema.Boolean),
  records: Schema.Array(ImportRecordInput).check(
    Schema.isMinLength(1, { message: `must hold 1 to ${maxRecords} records` }),
    Schema.isMaxLength(maxRecords, { message: `must hold 1 to ${maxRecords} records`, ...maxItemsDocs(maxRecords) })
  )
}).annotate({ identifier: "ImportBody", ...strict })
export type ImportBody = typeof ImportBody.Type

/** Why one record failed: the error code and message it would get from its upsert endpoint. */
export const RecordError = Schema.Struct({
  code: Schema.String.annotate({ description: "Stable error code; see docs/errors.md." }),
  message: Schema.String,
  // On the key: the JSON form of `Unknown` is a schema of its own, which keeps no annotations of the
  // value. "unknown": Effect 3's title of any value, which the document has always shown.
  details: Schema.optionalKey(Schema.Unknown).pipe(
    Schema.annotateKey({
      title: "unknown",
      description:
        "As on the upsert endpoint; paths are within the import body: $.records[3].body.category_ids[0]. At most 20 per record, each path and message cut at 300 characters."
    })
  ),
  // On the key: the document refers to `Int` and describes the field beside it.
  details_omitted: Schema.optionalKey(Int).pipe(
    Schema.annotateKey({
      description:
        "How many more details the record had than the report keeps (20 per record, 8 KiB per record's error, 64 KiB for the errors of a report); absent when none were left out."
    })
  )
}).annotate({ identifier: "ImportRecordError" })
export type RecordError = typeof RecordError.Type

/** Where an import record stands. */
export const RecordStatus = Schema.Literals(["applied", "failed", "pending"])
export type RecordStatus = typeof RecordStatus.Type

/** The result of one record. */
export const RecordResult = Schema.Struct({
  index: Int.annotate({ description: "Position of the record in the import body, from 0." }),
  resource: ResourceName,
  external_id: Schema.NullOr(Schema.String),
  status: RecordStatus,
  outcome: Schema.NullOr(Outcome).annotate({ description: "For applied records." }),
  id: Schema.NullOr(UUID).annotate({
    description: "The record written (null for failed records and for creates in a dry run)."
  }),
  error: Schema.NullOr(RecordError),
  run: Int.annotate({
    description: "The run that produced this result: 1, or the retry that re-ran the record."
  }),
  ignored_fields: Schema.optionalKey(Schema.Array(Schema.String)).annotate({
    description:
      "A prices-mode record: the catalog fields its body carried, preserved rather than applied (paths within the import body)."
  })
}).annotate({ identifier: "ImportRecordResult" })
export type RecordResult = typeof RecordResult.Type

/** The import report: counts and one result per record, in body order. */
export const ImportReport = Schema.Struct({
  dry_run: Schema.Boolean,
  run: Int,
  total: Int,
  created: Int,
  updated: Int,
  unchanged: Int,
  failed: Int,
  pending: Int,
  rerun: Schema.Array(Int).annotate({
    description: "Indices of the records the latest retry re-ran (the ones that had failed); empty before any retry."
  }),
  records: Schema.Array(RecordResult)
}).annotate({ identifier: "ImportReport" })
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
