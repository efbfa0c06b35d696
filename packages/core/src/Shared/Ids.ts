import { Context, Effect, Layer, Schema, SchemaTransformation } from "effect"
import { Text } from "../internal/Shared/Text.js"

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * A uuid in its 8-4-4-4-12 hex form, any version (Effect 4's `isUUID` also checks the version and variant
 * bits, which ids made elsewhere need not have).
 */
export const UUID = Schema.String.check(
  Schema.isPattern(uuidPattern, {
    expected: "a Universally Unique Identifier",
    toJsonSchema: () => ({ format: "uuid", pattern: uuidPattern.source })
  })
).annotate({ identifier: "UUID", description: "a Universally Unique Identifier" })

/**
 * A uuid sent by a client, in any letter case, decoded to the lowercase form every id is stored and
 * compared in (RFC 4122 treats uuids case-insensitively): `ABCD…` names the same record as `abcd…`.
 */
const lowercase = SchemaTransformation.transform({
  decode: (id: string) => id.toLowerCase(),
  encode: (id: string) => id
})

/** A client's uuid, any letter case, decoded to lowercase. */
export const Uuid = UUID.pipe(Schema.decodeTo(UUID, lowercase))

/**
 * `Uuid` as a field described where a body uses it. The description is on the field's JSON form (`UUID`),
 * which is what JSON Schema shows: `Uuid.annotate` or `annotateKey` would describe the decoded value.
 */
export const describedUuid = (description: string) =>
  UUID.pipe(Schema.annotateKey({ description }), Schema.decodeTo(UUID, lowercase))

/** A platform record id (uuid). Records are addressed by it in paths and References. */
export const RecordId = UUID.pipe(Schema.brand("RecordId"))
export type RecordId = typeof RecordId.Type

/** A company id (uuid). */
export const CompanyId = UUID.pipe(Schema.brand("CompanyId"))
export type CompanyId = typeof CompanyId.Type

/** A connection id (uuid). */
export const ConnectionId = UUID.pipe(Schema.brand("ConnectionId"))
export type ConnectionId = typeof ConnectionId.Type

/** external_id: a stable identifier of the source system, 1-200 characters. */
export const ExternalId = Text(1, 200).annotate({ identifier: "ExternalId", examples: ["ERP-4711"] })

/** Source of new identifiers. A port, so that tests can make ids deterministic. */
export class Ids extends Context.Service<Ids, { readonly next: Effect.Effect<string> }>()("@catalog-sync/core/Ids") {}

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
    next: Effect.clockWith((clock) => clock.currentTimeMillis).pipe(Effect.map((millis) => uuidV7(millis, random(10))))
  })
})
