/**
 * The API's answers read into the model harness's answer types (core/testing's ModelTarget): the members
 * the harness compares are checked where they are read, the rest of each object is kept as it came, so
 * that a replayed answer still equals the original one member for member.
 */
import type { ModelHarness } from "@catalog-sync/core/testing"
import { asArray, at, num, record, str } from "../Json.js"

/** A string or null at `key` of `value`; anything else fails the read. */
const nullableStr = (value: unknown, key: string): string | null => (at(value, key) === null ? null : str(value, key))

/** The boolean at `key` of `value`. */
const bool = (value: unknown, key: string): boolean => {
  const found = at(value, key)
  if (typeof found === "boolean") return found
  throw new Error(`expected a boolean ${key}, got ${JSON.stringify(found)}`)
}

/** The optional boolean `replayed` of a write's answer. */
const replayedOf = (value: unknown): { readonly replayed?: boolean } => {
  return at(value, "replayed") === undefined ? {} : { replayed: bool(value, "replayed") }
}

export const recordAnswer = (value: unknown): ModelHarness.RecordAnswer => ({
  ...record(value),
  id: str(value, "id"),
  external_id: nullableStr(value, "external_id"),
  revision: num(value, "revision")
})

export const recordsAnswer = (value: unknown): ReadonlyArray<ModelHarness.RecordAnswer> =>
  asArray(value, "records").map(recordAnswer)

export const writeAnswer = (value: unknown): ModelHarness.WriteAnswer => ({
  ...record(value),
  outcome: str(value, "outcome"),
  record: recordAnswer(at(value, "record")),
  ...replayedOf(value)
})

export const cardAnswer = (value: unknown): ModelHarness.CardAnswer => ({
  ...record(value),
  id: str(value, "id"),
  source_id: str(value, "source_id"),
  source_external_id: nullableStr(value, "source_external_id"),
  balances: asArray(value, "balances").map((balance) => ({
    ...record(balance),
    location_id: str(balance, "location_id"),
    physical: str(balance, "physical"),
    reserved: str(balance, "reserved"),
    revision: num(balance, "revision")
  }))
})

export const cardsAnswer = (value: unknown): ReadonlyArray<ModelHarness.CardAnswer> =>
  asArray(value, "records").map(cardAnswer)

export const stockAnswer = (value: unknown): ModelHarness.StockAnswer => ({
  ...record(value),
  outcome: str(value, "outcome"),
  record: cardAnswer(at(value, "record")),
  event: {
    ...record(value, "event"),
    physical_before: str(value, "event", "physical_before"),
    physical_after: str(value, "event", "physical_after"),
    revision: num(value, "event", "revision")
  },
  ...replayedOf(value)
})

const importRow = (value: unknown): ModelHarness.ImportRowAnswer => {
  const error = at(value, "error")
  return {
    ...record(value),
    index: num(value, "index"),
    status: str(value, "status"),
    ...(at(value, "outcome") === undefined ? {} : { outcome: nullableStr(value, "outcome") }),
    ...(at(value, "id") === undefined ? {} : { id: nullableStr(value, "id") }),
    ...(error === undefined ? {} : { error: error === null ? null : { ...record(error), code: str(error, "code") } })
  }
}

/** An import's answer: a processed job (`job` and its `report`) or a dry run (`report` only). */
export const importAnswer = (value: unknown): ModelHarness.ImportAnswer => {
  const job = at(value, "job")
  const report = at(value, "report")
  return {
    ...record(value),
    job: job === undefined || job === null ? null : { ...record(job), state: str(job, "state") },
    report:
      report === undefined || report === null
        ? null
        : {
            ...record(report),
            dry_run: bool(report, "dry_run"),
            failed: num(report, "failed"),
            records: asArray(report, "records").map(importRow)
          }
  }
}

export const feedAnswer = (value: unknown): ModelHarness.FeedAnswer => ({
  ...record(value),
  records: asArray(value, "records").map((change) => ({
    ...record(change),
    resource: str(change, "resource"),
    id: str(change, "id"),
    external_id: nullableStr(change, "external_id"),
    revision: num(change, "revision"),
    operation: str(change, "operation"),
    origin_connection_id: nullableStr(change, "origin_connection_id")
  })),
  next_cursor: str(value, "next_cursor"),
  has_more: bool(value, "has_more")
})
