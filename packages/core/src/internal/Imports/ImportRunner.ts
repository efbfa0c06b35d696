import { Effect } from "effect"
import { definitions } from "../../Resources/Registry.js"
import type { ResourceName } from "../../Resources/Resource.js"
import type { RecordError } from "../../Imports/Import.js"
import { findReferences } from "../Catalog/ReferenceSlots.js"
import { breathe } from "../Shared/Breathe.js"
import type { JsonObject } from "../json.js"

/** A record to apply: its position in the import body, resource and body. */
export interface PlannedRecord {
  readonly index: number
  readonly resource: ResourceName
  readonly body: JsonObject
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

/** Records by resource rank, then body order: the order of records that do not reference each other. */
export const applyOrder = <R extends PlannedRecord>(records: ReadonlyArray<R>): ReadonlyArray<R> =>
  [...records].sort((a, b) => rank[a.resource] - rank[b.resource] || a.index - b.index)

const keyOf = (resource: string, externalId: unknown) => `${resource}|${String(externalId)}`

/** The `resource|external_id` of every record a body (as sent, not yet decoded) references by external id. */
const externalReferences = (record: PlannedRecord): ReadonlyArray<string> =>
  findReferences(record.body, definitions[record.resource].references).flatMap(({ reference, target }) => {
    // Not decoded yet: the slot may hold anything the client sent.
    const sent: unknown = reference
    const externalId =
      typeof sent === "object" && sent !== null ? (sent as { external_id?: unknown }).external_id : undefined
    return typeof externalId === "string" ? [keyOf(target, externalId)] : []
  })

/**
 * The order a pass applies records in: every record after the records of the batch it references by
 * external id (the first write of each), and the writes of one record in body order; otherwise
 * `applyOrder`. So a batch whose references point anywhere within it applies in one pass, whatever order
 * it was sent in: a pass costs its records, not records x passes. Records in a reference cycle (which
 * cannot all apply) keep `applyOrder` after the others.
 */
export const dependencyOrder = <R extends PlannedRecord>(records: ReadonlyArray<R>): ReadonlyArray<R> => {
  const ordered = applyOrder(records)
  const firstWriter = new Map<string, number>()
  const lastWriter = new Map<string, number>()
  const dependents: Array<Array<number>> = ordered.map(() => [])
  const waitingOn = new Array<number>(ordered.length).fill(0)
  const addEdge = (from: number, to: number) => {
    dependents[from]!.push(to)
    waitingOn[to]!++
  }
  ordered.forEach((record, position) => {
    const key = keyOf(record.resource, record.body.external_id)
    const previous = lastWriter.get(key)
    if (previous !== undefined) addEdge(previous, position)
    else firstWriter.set(key, position)
    lastWriter.set(key, position)
  })
  ordered.forEach((record, position) => {
    for (const key of new Set(externalReferences(record))) {
      const writer = firstWriter.get(key)
      if (writer !== undefined && writer !== position) addEdge(writer, position)
    }
  })
  // Kahn's algorithm, taking the ready record that comes first in `applyOrder` (a batch holds 50 at most).
  const result: Array<R> = []
  const done = new Array<boolean>(ordered.length).fill(false)
  for (;;) {
    const next = waitingOn.findIndex((count, position) => count === 0 && !done[position])
    if (next === -1) break
    done[next] = true
    result.push(ordered[next]!)
    for (const dependent of dependents[next]!) waitingOn[dependent]!--
  }
  ordered.forEach((record, position) => {
    if (!done[position]) result.push(record)
  })
  return result
}

export interface PassesResult {
  /** The last attempt of every record, by index. */
  readonly results: ReadonlyMap<number, Attempt>
  readonly passes: number
}

/**
 * Applies records over several passes. Each pass tries the waiting records in `dependencyOrder`; a record
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
    let waiting = dependencyOrder(records)
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
        // Lets waiting fibers (requests) take the connection between two batches' transactions, and the event
        // loop serve other clients: a worker that re-took it at once would starve them for the whole job.
        yield* breathe
      }
      if (!progress) break
      waiting = next
    }
    return { results, passes }
  })
