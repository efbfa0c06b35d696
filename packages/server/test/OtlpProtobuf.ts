/**
 * Reads an OTLP `ExportTraceServiceRequest` in protobuf (what `http/protobuf` POSTs to /v1/traces) into
 * the shape of its JSON form, for the test receiver. A plain reader of the protobuf wire format, with the
 * field numbers of opentelemetry-proto's trace.proto and common.proto: the OTel packages installed ship a
 * writer only, and no protobuf library is installed.
 */

interface Field {
  readonly number: number
  /** A varint or a fixed64 as a bigint, a fixed32 as a number, a length-delimited field as its bytes. */
  readonly value: bigint | number | Uint8Array
}

const fieldsOf = (bytes: Uint8Array): Array<Field> => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const fields: Array<Field> = []
  let at = 0
  const varint = (): bigint => {
    let result = 0n
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++]
      if (byte === undefined) throw new Error("truncated varint")
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return result
    }
  }
  while (at < bytes.length) {
    const key = Number(varint())
    const number = key >>> 3
    switch (key & 7) {
      case 0:
        fields.push({ number, value: varint() })
        break
      case 1:
        fields.push({ number, value: view.getBigUint64(at, true) })
        at += 8
        break
      case 2: {
        const length = Number(varint())
        fields.push({ number, value: bytes.subarray(at, at + length) })
        at += length
        break
      }
      case 5:
        fields.push({ number, value: view.getUint32(at, true) })
        at += 4
        break
      default:
        throw new Error(`unsupported wire type ${key & 7}`)
    }
  }
  return fields
}

const all = (fields: ReadonlyArray<Field>, number: number) =>
  fields.filter((field) => field.number === number).map((field) => field.value)
const one = (fields: ReadonlyArray<Field>, number: number) => all(fields, number).at(-1)
const messages = (fields: ReadonlyArray<Field>, number: number) =>
  all(fields, number).map((value) => fieldsOf(value as Uint8Array))
const text = (value: unknown) => (value === undefined ? undefined : new TextDecoder().decode(value as Uint8Array))
const hex = (value: unknown) => (value === undefined ? "" : Buffer.from(value as Uint8Array).toString("hex"))

/** common.proto AnyValue, as the JSON form's one-key object. */
const anyValue = (fields: ReadonlyArray<Field>): Record<string, unknown> => {
  const [field] = fields
  if (field === undefined) return {}
  switch (field.number) {
    case 1:
      return { stringValue: text(field.value) }
    case 2:
      return { boolValue: field.value === 1n }
    case 3:
      return { intValue: BigInt.asIntN(64, field.value as bigint).toString() }
    case 4: {
      const view = new DataView(new ArrayBuffer(8))
      view.setBigUint64(0, field.value as bigint, true)
      return { doubleValue: view.getFloat64(0, true) }
    }
    case 5:
      return { arrayValue: { values: messages(fieldsOf(field.value as Uint8Array), 1).map(anyValue) } }
    default:
      return { unsupported: field.number }
  }
}

const keyValues = (fields: ReadonlyArray<Field>, number: number) =>
  messages(fields, number).map((kv) => ({ key: text(one(kv, 1)), value: anyValue(messages(kv, 2)[0] ?? []) }))

const statusOf = (status: ReadonlyArray<Field>) => ({
  code: Number(one(status, 3) ?? 0n),
  message: one(status, 2) === undefined ? "" : text(one(status, 2))
})

/** trace.proto: request 1 = ResourceSpans; ResourceSpans 2 = ScopeSpans; ScopeSpans 2 = Span. */
export const decodeTraceRequest = (body: Uint8Array) => ({
  resourceSpans: messages(fieldsOf(body), 1).map((resource) => ({
    scopeSpans: messages(resource, 2).map((scope) => ({
      spans: messages(scope, 2).map((span) => ({
        traceId: hex(one(span, 1)),
        spanId: hex(one(span, 2)),
        parentSpanId: hex(one(span, 4)),
        name: text(one(span, 5)),
        attributes: keyValues(span, 9),
        // Event 2 = name, 3 = attributes; Status 2 = message, 3 = code.
        events: messages(span, 11).map((event) => ({ name: text(one(event, 2)), attributes: keyValues(event, 3) })),
        links: messages(span, 13).map((link) => ({ traceId: hex(one(link, 1)), spanId: hex(one(link, 2)) })),
        status: statusOf(messages(span, 15)[0] ?? [])
      }))
    }))
  }))
})
