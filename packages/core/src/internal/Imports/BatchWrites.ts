import { Effect, type Result } from "effect"
import type { Attempt, PlannedRecord } from "./ImportRunner.js"
import { CatalogService } from "../../Catalog/CatalogService.js"
import type { ValidationFailed } from "../../Shared/Errors.js"
import { Transactor } from "../../Shared/Transactor.js"
import type { UpsertBody } from "../Catalog/WriteHeader.js"
import { WriteBehindAbandoned } from "../Catalog/WriteBehind.js"
import { breathe } from "../Shared/Breathe.js"
import { attempt } from "./RecordErrors.js"

/** A record's decoded body (`decodedOnce`). */
export type DecodedOf = (record: PlannedRecord) => Result.Result<UpsertBody, ValidationFailed>

/** What one upsert of a record wrote: its outcome and the id of its record. */
export interface Written {
  readonly outcome: "created" | "updated" | "unchanged"
  readonly recordId: string
}

/**
 * The two ways an import applies a batch of records in the caller's transaction, shared by the job and
 * the dry run so that both apply a batch alike.
 */
export const makeBatchWrites = Effect.gen(function* () {
  const catalog = yield* CatalogService
  const transactor = yield* Transactor

  /**
   * Set-based: the batch's mappings read up front, its new records, mappings and changes written in one
   * statement per table, with no savepoint per record. A record that fails before writing needs none; one
   * that failed after writing, or a conflict when flushing, fails the whole with `WriteBehindAbandoned`:
   * the caller rolls the batch back and applies it `perRecord`.
   */
  const setBased = <P extends PlannedRecord>(batch: ReadonlyArray<P>, decoded: DecodedOf) =>
    Effect.gen(function* () {
      const writer = yield* catalog.batchWriter
      yield* writer.prefetch(
        batch.flatMap((item) => {
          const body = decoded(item)
          return body._tag === "Success" ? [{ resource: item.resource, body: body.success }] : []
        })
      )
      const attempts: Array<Attempt> = []
      for (const item of batch) {
        yield* breathe
        const before = writer.writes()
        const result = yield* attempt(
          item,
          (body) =>
            Effect.map(writer.upsert(item.resource, body), (written): Attempt => ({ _tag: "Applied", ...written })),
          decoded(item)
        )
        if (result._tag === "Failed" && writer.writes() !== before)
          return yield* new WriteBehindAbandoned({ message: `import record ${item.index} failed after writing` })
        attempts.push(result)
      }
      yield* writer.flush
      return attempts
    })

  /**
   * Record by record: each upsert a savepoint (a failing record rolls back its own writes only), then
   * `applied` in the same savepoint's transaction (e.g. the job's durable mark of the record).
   */
  const perRecord = <P extends PlannedRecord, E, R>(
    batch: ReadonlyArray<P>,
    decoded: DecodedOf,
    applied: (item: P, written: Written) => Effect.Effect<Attempt, E, R>
  ) =>
    Effect.forEach(batch, (item) =>
      Effect.andThen(
        breathe,
        attempt(
          item,
          (body) =>
            Effect.flatMap(transactor.withTransaction(catalog.upsert(item.resource, body)), (result) =>
              applied(item, { outcome: result.outcome, recordId: result.record.id })
            ),
          decoded(item)
        )
      )
    )

  return { setBased, perRecord } as const
})
