/**
 * Bytes to lines, keeping each line's number and byte offsets so that a later pass can read a byte range
 * of the file again and a failure can name the line it came from. Memory stays bounded by the longest line.
 */
import { Stream } from "effect"

export interface Line {
  /** The text without its line break (and without a byte-order mark on the first line). */
  readonly text: string
  /** 1-based line number in the file. */
  readonly number: number
  /** Byte offset of the line's first byte. */
  readonly start: number
  /** Byte offset just past the line break (the next line's start). */
  readonly end: number
  /** The line was longer than the limit: its text is dropped. */
  readonly oversized: boolean
}

export interface LinesOptions {
  /** Where the bytes start in the file: its first line's number and byte offset. */
  readonly firstLine?: number
  readonly firstOffset?: number
  /** Longer lines are reported `oversized` with no text (default 4 MiB: a record of the API is at most 1 MB). */
  readonly maxLineBytes?: number
}

const newline = 0x0a
const carriageReturn = 0x0d

/** Splits a byte stream into lines on `\n` (a trailing `\r` is dropped); a last line without a break is kept. */
export const lines = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  options: LinesOptions = {}
): Stream.Stream<Line, E, R> =>
  Stream.suspend(() => {
    const max = options.maxLineBytes ?? 4 * 1024 * 1024
    let number = options.firstLine ?? 1
    let offset = options.firstOffset ?? 0
    // Bytes of the current line not yet ended, and how many were dropped past the limit.
    let pending: Array<Buffer> = []
    let pendingBytes = 0
    let dropped = false

    const emit = (parts: ReadonlyArray<Buffer>, length: number, breakLength: number): Line => {
      const line: Line = dropped
        ? { text: "", number, start: offset, end: offset + length + breakLength, oversized: true }
        : {
            text: decode(parts, number === 1 && offset === 0),
            number,
            start: offset,
            end: offset + length + breakLength,
            oversized: false
          }
      number++
      offset = line.end
      return line
    }

    const take = (chunk: Uint8Array): Array<Line> => {
      const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
      const out: Array<Line> = []
      let from = 0
      while (from < buffer.length) {
        const at = buffer.indexOf(newline, from)
        if (at === -1) {
          keep(buffer.subarray(from))
          break
        }
        const rest = buffer.subarray(from, at)
        if (pendingBytes === 0 && rest.length <= max) {
          // The whole line is in this chunk: decode it in place.
          out.push(emit([rest], rest.length, 1))
        } else {
          keep(rest)
          out.push(emit(pending, pendingBytes, 1))
        }
        pending = []
        pendingBytes = 0
        dropped = false
        from = at + 1
      }
      return out
    }

    const keep = (part: Buffer) => {
      if (part.length === 0) return
      pendingBytes += part.length
      if (dropped) return
      if (pendingBytes > max) {
        dropped = true
        pending = []
        return
      }
      // The chunk's memory may be reused by the reader: copy what outlives this call.
      pending.push(Buffer.from(part))
    }

    const last = Stream.suspend(() => (pendingBytes === 0 ? Stream.empty : Stream.make(emit(pending, pendingBytes, 0))))
    return bytes.pipe(Stream.map(take), Stream.flattenIterable, Stream.concat(last))
  })

const decode = (parts: ReadonlyArray<Buffer>, first: boolean): string => {
  const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  let end = whole.length
  if (end > 0 && whole[end - 1] === carriageReturn) end--
  const text = whole.toString("utf8", 0, end)
  return first && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
