/** A plan cut into import bodies, and whether a body applies in one pass. */
import * as fc from "fast-check"
import { maxRecords } from "../../Imports/Import.js"
import { applyOrder } from "../../internal/Imports/ImportRunner.js"
import { type CatalogPlan, type PlannedRecord, Ref } from "./CatalogPlan.js"

/** The external ids each record of a plan references, as `resource|external_id`. */
export const dependenciesOf = (record: PlannedRecord): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (value: unknown): void => {
    if (value instanceof Ref) found.push(`${value.resource}|${value.externalId}`)
    else if (Array.isArray(value)) value.forEach(walk)
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk)
  }
  walk(record.body)
  return found
}

/**
 * A plan's records as consecutive import bodies of at most `maxRecords` records, each shuffled: every
 * reference points into the same body or an earlier one, so each import resolves, over several passes
 * when a record comes before one it references (a child category before its parent, a bundle before
 * its components).
 */
export const importBatches = (
  plan: CatalogPlan,
  size: number = maxRecords
): fc.Arbitrary<ReadonlyArray<ReadonlyArray<PlannedRecord>>> => {
  const n = plan.records.length
  return fc.array(fc.boolean(), { minLength: Math.max(0, n - 1), maxLength: Math.max(0, n - 1) }).chain((cuts) => {
    const batches: Array<Array<PlannedRecord>> = [[]]
    plan.records.forEach((record, i) => {
      const current = batches[batches.length - 1]!
      if (i > 0 && (cuts[i - 1] === true || current.length >= size)) batches.push([record])
      else current.push(record)
    })
    return fc.tuple(
      ...batches.map((batch) => fc.shuffledSubarray(batch, { minLength: batch.length, maxLength: batch.length }))
    )
  })
}

/**
 * Whether an import body's records come in an order that resolves as they are: in the resources' apply
 * order (by rank, then body order), no record references one after it. The others rely on the runner's
 * dependency order (or, without it, on several passes).
 */
export const inApplyOrder = (batch: ReadonlyArray<PlannedRecord>): boolean => {
  const inBatch = new Set(batch.map((record) => `${record.resource}|${record.externalId}`))
  const seen = new Set<string>()
  for (const { record } of applyOrder(
    batch.map((record, index) => ({ index, resource: record.resource, body: record.body, record }))
  )) {
    if (dependenciesOf(record).some((dep) => inBatch.has(dep) && !seen.has(dep))) return false
    seen.add(`${record.resource}|${record.externalId}`)
  }
  return true
}
