import { Effect } from "effect"
import type { ResourceName } from "../../Resources/Resource.js"
import type { RecordError } from "../../Imports/Import.js"

/** A record to apply: its position in the import body, resource and body. */
export interface PlannedRecord {
  readonly index: number
  readonly resource: ResourceName
  readonly body: Readonly<Record<string, unknown>>
}

export type Attempt =
  | { readonly _tag: "Applied"; readonly outcome: "created" | "updated" | "unchanged"; readonly recordId: string }
  | { readonly _tag: "Failed"; readonly error: RecordError; readonly unresolved: boolean }

/**
 * Resources in the order their references point: what products and options reference first, and the
 * customization data as types, then groups, then options (spec 2.10). Records of one resource keep
 * their body order, so two writes of one record apply in the order sent.
 */
const rank: Readonly<Record<ResourceName, number>> = {
  categories: 0,
  collections: 0,
  brands: 0,
  "customization-types": 1,
  "customization-groups": 2,
  "customization-options": 3,
  products: 4
}

/** The order a pass applies records in: by resource rank, then body order. */
export const applyOrder = <R extends PlannedRecord>(records: ReadonlyArray<R>): ReadonlyArray<R> =>
  [...records].sort((a, b) => rank[a.resource] - rank[b.resource] || a.index - b.index)

export interface PassesResult {
  /** The last attempt of every record, by index. */
  readonly results: ReadonlyMap<number, Attempt>
  readonly passes: number
}

/**
 * Applies records over several passes. Each pass tries the waiting records in `applyOrder`; a record
 * that failed only with `unresolved_reference` waits for the next pass, which runs while the previous
 * pass applied at least one record (that record may be what it references). Any other failure is final,
 * and a reference that never resolves fails its record when a pass makes no progress. Each attempt is
 * the caller's: it decides what is atomic and durable.
 */
export const runPasses = <P extends PlannedRecord, E, R>(
  records: ReadonlyArray<P>,
  attempt: (record: P) => Effect.Effect<Attempt, E, R>
): Effect.Effect<PassesResult, E, R> =>
  runPassesInBatches(records, 1, (batch) => Effect.map(attempt(batch[0]!), (result) => [result]))

/**
 * `runPasses` handing each pass's records to `applyBatch` up to `size` at a time, in apply order:
 * the caller makes a batch one unit of work (one transaction) and answers one attempt per record, in
 * the batch's order. Records later in a batch see what earlier ones wrote, as they would one by one.
 */
export const runPassesInBatches = <P extends PlannedRecord, E, R>(
  records: ReadonlyArray<P>,
  size: number,
  applyBatch: (batch: ReadonlyArray<P>) => Effect.Effect<ReadonlyArray<Attempt>, E, R>
): Effect.Effect<PassesResult, E, R> =>
  Effect.gen(function* () {
    const results = new Map<number, Attempt>()
    let waiting = applyOrder(records)
    let passes = 0
    while (waiting.length > 0) {
      passes++
      let progress = false
      const next: Array<P> = []
      for (let start = 0; start < waiting.length; start += size) {
        const batch = waiting.slice(start, start + size)
        const attempts = yield* applyBatch(batch)
        batch.forEach((record, i) => {
          const result = attempts[i]!
          results.set(record.index, result)
          if (result._tag === "Applied") progress = true
          else if (result.unresolved) next.push(record)
        })
        // Lets waiting fibers (requests) take the connection between two batches' transactions: a worker
        // that re-took it at once would starve them for the whole job on a single-connection database.
        yield* Effect.yieldNow()
      }
      if (!progress) break
      waiting = next
    }
    return { results, passes }
  })
