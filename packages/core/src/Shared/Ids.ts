import { Context, Effect, Layer, Schema } from "effect"
import { Text } from "../internal/Shared/Text.js"

/**
 * A uuid sent by a client, in any letter case, decoded to the lowercase form every id is stored and
 * compared in (RFC 4122 treats uuids case-insensitively): `ABCD…` names the same record as `abcd…`.
 */
export const Uuid = Schema.transform(Schema.UUID, Schema.UUID, {
  strict: true,
  decode: (id) => id.toLowerCase(),
  encode: (id) => id
})

/** A platform record id (uuid). Records are addressed by it in paths and References. */
export const RecordId = Schema.UUID.pipe(Schema.brand("RecordId"))
export type RecordId = typeof RecordId.Type

/** A company id (uuid). */
export const CompanyId = Schema.UUID.pipe(Schema.brand("CompanyId"))
export type CompanyId = typeof CompanyId.Type

/** A connection id (uuid). */
export const ConnectionId = Schema.UUID.pipe(Schema.brand("ConnectionId"))
export type ConnectionId = typeof ConnectionId.Type

/** external_id: a stable identifier of the source system, 1-200 characters. */
export const ExternalId = Text(1, 200).annotations({ identifier: "ExternalId", examples: ["ERP-4711"] })

/** Source of new identifiers. A port, so that tests can make ids deterministic. */
export class Ids extends Context.Tag("@catalog-sync/core/Ids")<Ids, { readonly next: Effect.Effect<string> }>() {}

const hexOfByte = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

const hex = (bytes: Uint8Array): string => {
  let out = ""
  for (const byte of bytes) out += hexOfByte[byte]
  return out
}

/**
 * UUID version 7: a millisecond timestamp prefix keeps ids in creation order, so id-ordered cursor pages
 * return records in roughly the order they were made and index inserts stay local.
 */
export const uuidV7 = (millis: number, random: Uint8Array): string => {
  const bytes = new Uint8Array(16)
  let time = millis
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256
    time = Math.floor(time / 256)
  }
  bytes.set(random.subarray(0, 10), 6)
  bytes[6] = 0x70 | (bytes[6]! & 0x0f)
  bytes[8] = 0x80 | (bytes[8]! & 0x3f)
  const h = hex(bytes)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * Random bytes from the platform's crypto source, drawn 4,000 at a time: one call per 400 ids instead of
 * one per id (an import makes three ids per record). Each byte is handed out once.
 */
const randomBlocks = () => {
  const block = new Uint8Array(4_000)
  let at = block.length
  return (count: number): Uint8Array => {
    if (at + count > block.length) {
      globalThis.crypto.getRandomValues(block)
      at = 0
    }
    at += count
    return block.subarray(at - count, at)
  }
}

/** Time-ordered random ids from the platform's crypto source. */
export const IdsLive = Layer.sync(Ids, () => {
  const random = randomBlocks()
  return Ids.of({
    next: Effect.clockWith((clock) => clock.currentTimeMillis).pipe(
      Effect.map((millis) => uuidV7(Number(millis), random(10)))
    )
  })
})
