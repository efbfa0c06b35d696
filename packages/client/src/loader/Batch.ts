/**
 * Records into import batches (1-50 records, under the 1 MB request limit), each with an Idempotency-Key
 * derived from its records' input positions and content: the same input batched again (a resumed load)
 * gives the same keys, so a batch whose answer was lost is replayed by the server, never applied twice.
 */
import { createHash } from "node:crypto"
import { Stream } from "effect"
import type { Resource } from "./Order.js"

/** Where a record came from: the input file as given and its line (a CSV row's first line). */
export interface Position {
  readonly file: string
  readonly line: number
}

export interface InputRecord {
  readonly position: Position
  readonly resource: Resource
  readonly body: Readonly<Record<string, unknown>>
  /** The body as sent (JSON), which the key and the size limit are computed from. */
  readonly json: string
}

export interface Batch {
  readonly tier: string
  /** 0-based number of the batch within its tier. */
  readonly seq: number
  readonly records: ReadonlyArray<InputRecord>
  readonly key: string
}

/** Records per import (spec 8). */
export const maxRecords = 50
/** JSON bytes of a batch's records; the request limit is 1 MB with the envelope. */
export const maxBytes = 1_000_000 - 16_384
/** What `{"resource":"...","body":}` and the separators add per record, at most. */
const recordOverhead = 64

export const recordBytes = (record: InputRecord): number => Buffer.byteLength(record.json) + recordOverhead

/**
 * The Idempotency-Key of a batch: a digest of its tier, its records' positions and bodies, and a salt
 * (a retry round, so that re-sending fixed records is a new operation). Matches `^[A-Za-z0-9._:-]{8,120}$`.
 */
export const batchKey = (tier: string, records: ReadonlyArray<InputRecord>, salt = ""): string => {
  const hash = createHash("sha256").update(`${salt}\n${tier}\n`)
  for (const record of records)
    hash.update(`${record.position.file}:${record.position.line}\n${record.resource}\n${record.json}\n`)
  return `csl-${hash.digest("hex").slice(0, 48)}`
}

export interface BatchOptions {
  readonly size?: number
  readonly bytes?: number
  readonly salt?: string
}

/** Groups a tier's records into batches of at most `size` records and `bytes` bytes, in input order. */
export const batches = <E, R>(
  records: Stream.Stream<InputRecord, E, R>,
  tier: string,
  options: BatchOptions = {}
): Stream.Stream<Batch, E, R> =>
  Stream.suspend(() => {
    const size = Math.min(maxRecords, Math.max(1, options.size ?? maxRecords))
    const limit = options.bytes ?? maxBytes
    let current: Array<InputRecord> = []
    let currentBytes = 0
    let seq = 0
    const close = (): Batch => {
      const batch = { tier, seq: seq++, records: current, key: batchKey(tier, current, options.salt) }
      current = []
      currentBytes = 0
      return batch
    }
    const take = (record: InputRecord): Array<Batch> => {
      const bytes = recordBytes(record)
      const out: Array<Batch> = []
      if (current.length > 0 && (current.length >= size || currentBytes + bytes > limit)) out.push(close())
      current.push(record)
      currentBytes += bytes
      return out
    }
    const rest = Stream.suspend(() => (current.length === 0 ? Stream.empty : Stream.make(close())))
    return records.pipe(Stream.map(take), Stream.flattenIterable, Stream.concat(rest))
  })
