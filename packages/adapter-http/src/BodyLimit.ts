import { NodeHttpServerRequest } from "@effect/platform-node"
import { Data, Effect, type Schema, Stream } from "effect"
import { HttpBody, HttpServerError, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { isUtf8 } from "node:buffer"
import type { IncomingMessage, ServerResponse } from "node:http"
import { discardRest, lingerThenClose } from "./LingeringClose.js"

/** JSON request bodies are limited to 1 MB (spec section 8). */
export const maxJsonBytes = 1_000_000

/**
 * An upload (POST /media, the endpoint whose payload is multipart: its handler streams it to staging
 * itself): a 10 MiB image plus room for the form fields and multipart framing.
 */
export const maxMediaBodyBytes = 10 * 1024 * 1024 + 64 * 1024

/** Whether a Content-Length declares a body over `limit` (413 before anything of it is read). */
export const declaresOver = (contentLength: string | undefined, limit: number) =>
  contentLength !== undefined && Number(contentLength) > limit

export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

/** The Node request under `request`: the server speaks HTTP/1.1 (node:http), never HTTP/2. */
export const incomingOf = (request: HttpServerRequest.HttpServerRequest): IncomingMessage =>
  NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage

/** A failure to read the request's body, as the server reports one. */
const unreadableBody = (request: HttpServerRequest.HttpServerRequest, cause: unknown, description?: string) =>
  new HttpServerError.HttpServerError({
    reason: new HttpServerError.RequestParseError({
      request,
      cause,
      ...(description === undefined ? {} : { description })
    })
  })

/**
 * JSON nested deeper than this is refused before it is parsed: no request of the API nests beyond ~8
 * levels, and validating and reporting a value thousands of levels deep exhausts the stack.
 */
export const maxJsonDepth = 64

/**
 * Different object keys a JSON body may name, refused before it is parsed: no request of the API names
 * more than ~150 (its field names and a company's language codes), and parsing tens of thousands of
 * distinct keys costs far more than their bytes (V8 interns every name and builds an object for each
 * shape): 75,000 keys in one object take ~100 ms to parse, an array as long of objects with one
 * distinct key each longer.
 */
export const maxJsonKeys = 1_000

/** Why a JSON body is refused before it is parsed. */
export type JsonShapeRefusal = "too_deep" | "too_many_keys"

const quote = 0x22
const backslash = 0x5c

/** Seeds of the key hashes, drawn per process: which keys collide cannot be worked out from outside. */
const seeds = globalThis.crypto.getRandomValues(new Uint32Array(2))

/** What one pass over a JSON body finds before it is parsed. */
export interface JsonShape {
  readonly refusal: JsonShapeRefusal | undefined
  /**
   * Whether a number literal has an exponent or 16 characters or more: only such a literal can be one
   * `JSON.parse` does not hold exactly (`JsonNumbers`), so a body without one is not scanned for them.
   */
  readonly longNumbers: boolean
}

/**
 * Whether the JSON bytes open more than `limits.depth` arrays or objects at once, or name more than
 * `limits.keys` different object keys (brackets, commas and quotes inside strings do not count), and
 * whether they hold a long number literal. Read as bytes, not text: the characters that matter are ASCII,
 * which UTF-8 never uses inside a multi-byte character. A key is told apart by two seeded 32-bit hashes of
 * its raw bytes (no string is made for it), so a key written with other escapes counts as another. Bytes
 * that are not JSON are left to the parser.
 */
export const jsonShape = (json: Uint8Array, limits: { readonly depth: number; readonly keys: number }): JsonShape => {
  // Whether the container open at each depth is an object, whose next string after `{` or `,` is a key.
  const inObject = new Uint8Array(limits.depth + 2)
  const keys = new Set<number>()
  let depth = 0
  let expectKey = false
  let longNumbers = false
  const refused = (refusal: JsonShapeRefusal): JsonShape => ({ refusal, longNumbers })
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!
    if (c === quote) {
      if (expectKey) {
        expectKey = false
        let h1 = seeds[0]!
        let h2 = seeds[1]!
        for (i++; i < json.length && json[i] !== quote; i++) {
          const b = json[i]!
          h1 = Math.imul(h1 ^ b, 0x01000193)
          h2 = Math.imul(h2 ^ b, 0x5bd1e995)
          if (b === backslash && i + 1 < json.length) {
            const escaped = json[++i]!
            h1 = Math.imul(h1 ^ escaped, 0x01000193)
            h2 = Math.imul(h2 ^ escaped, 0x5bd1e995)
          }
        }
        keys.add((h1 >>> 0) * 0x200000 + (h2 >>> 11))
        if (keys.size > limits.keys) return refused("too_many_keys")
      } else {
        for (i++; i < json.length && json[i] !== quote; i++) if (json[i] === backslash) i++
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limits.depth) return refused("too_deep")
      inObject[depth] = c === 0x7b ? 1 : 0
      expectKey = c === 0x7b
    } else if (c === 0x7d || c === 0x5d) {
      depth = Math.max(0, depth - 1)
      expectKey = false
    } else if (c === 0x2c) expectKey = inObject[depth] === 1
    else if (!longNumbers && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
      const start = i
      for (let d = json[i + 1]; d !== undefined && ((d >= 0x30 && d <= 0x39) || d === 0x2e); d = json[++i + 1]);
      const next = json[i + 1]
      longNumbers = next === 0x65 || next === 0x45 || i + 1 - start >= 16
    }
  }
  return { refusal: undefined, longNumbers }
}

/** `jsonShape`'s refusal alone. */
export const jsonShapeRefusal = (
  json: Uint8Array,
  limits: { readonly depth: number; readonly keys: number }
): JsonShapeRefusal | undefined => jsonShape(json, limits).refusal

const longNumbersKey = Symbol("longNumbers")

/**
 * Whether the request's body may hold a number literal `JSON.parse` cannot hold exactly: false only for a
 * body `withBody` was told holds no long literal.
 */
export const mayHoldInexactNumbers = (request: HttpServerRequest.HttpServerRequest) =>
  (request as unknown as Record<symbol, boolean | undefined>)[longNumbersKey] !== false

/**
 * Reads the raw body up to `limit` bytes and stops at the first byte past it, so an oversized body is
 * refused while it streams, never buffered whole. The socket is left open so that the 413 can still be
 * written. Listens on the request itself: an Effect `Stream` over it cost more than the rest of a small
 * write (docs/performance.md).
 */
export const readLimited = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Buffer, BodyTooLarge | HttpServerError.HttpServerError> =>
  Effect.callback((resume) => {
    const incoming = incomingOf(request)
    const transport = (cause: unknown) => unreadableBody(request, cause, "the body could not be read")
    const chunks: Array<Buffer> = []
    let total = 0
    const stop = () => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onError)
      incoming.off("close", onClose)
    }
    const settle = (result: Effect.Effect<Buffer, BodyTooLarge | HttpServerError.HttpServerError>) => {
      stop()
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total > limit) {
        incoming.pause()
        settle(Effect.fail(new BodyTooLarge({ limit })))
      } else chunks.push(chunk)
    }
    const onEnd = () => settle(Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)))
    const onError = (cause: unknown) => settle(Effect.fail(transport(cause)))
    // A request closed before its end was cut off by the client.
    const onClose = () => settle(Effect.fail(transport(new Error("the request ended before its body was complete"))))
    if (incoming.readableEnded || incoming.destroyed) {
      resume(Effect.fail(transport(new Error("the request body was already read or cut off"))))
      return
    }
    incoming.on("data", onData)
    incoming.on("end", onEnd)
    incoming.on("error", onError)
    incoming.on("close", onClose)
    return Effect.sync(stop)
  })

/**
 * The same request, answering `text`, `json` and `arrayBuffer` from bytes already read. HttpApi
 * decodes the payload through these. Bytes that are not UTF-8 are not JSON (RFC 8259 8.1): they fail
 * as a SyntaxError (400 `malformed_json`), where a lenient decode would store U+FFFD in their place.
 */
export const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  body: Buffer,
  longNumbers = true
): HttpServerRequest.HttpServerRequest => {
  let text: string | undefined
  const decoded = () => {
    if (text !== undefined) return text
    if (!isUtf8(body)) throw new SyntaxError("it is not UTF-8 text")
    return (text = body.toString("utf8"))
  }
  const decodeError = (cause: unknown) => unreadableBody(request, cause)
  return Object.create(request, {
    text: { value: Effect.try({ try: decoded, catch: decodeError }) },
    json: { value: Effect.try({ try: () => JSON.parse(decoded()) as Schema.Json, catch: decodeError }) },
    [longNumbersKey]: { value: longNumbers },
    // Copied only when asked for: JSON endpoints never are.
    arrayBuffer: { value: Effect.sync(() => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)) }
  }) as HttpServerRequest.HttpServerRequest
}

/**
 * Keeps the platform's own handling of an unread body out of the way of `discardRest`. NodeHttpServer
 * (@effect/platform-node 4) closes a connection whose unread body is over 256 KiB: it sends
 * `Connection: close` when the answer's Content-Length is written while more than that of a declared
 * body is unread, and, once the answer is sent, reads the rest itself and closes the connection past
 * 256 KiB of it. It offers no setting for either, so:
 * - the answer goes out as a stream of its one chunk (same headers and bytes): the platform leaves the
 *   connection open after a streamed answer, which may still read the body;
 * - the reader it adds to the request as the answer finishes is removed: the rest of the body is
 *   `discardRest`'s, bounded by the route's limit and by time.
 * Only for a body still arriving: one received whole is left alone by the platform.
 */
const keepConnectionOpen = (
  request: HttpServerRequest.HttpServerRequest,
  incoming: IncomingMessage,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const nodeResponse = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
  let readers: ReadonlySet<unknown> = new Set()
  // Ahead of the platform's `finish` listener, and then after it.
  nodeResponse.prependOnceListener("finish", () => {
    readers = new Set(incoming.listeners("data"))
  })
  nodeResponse.once("finish", () => {
    for (const reader of incoming.listeners("data")) {
      if (!readers.has(reader)) incoming.off("data", reader as (chunk: Buffer) => void)
    }
  })
  const body = response.body
  if (body._tag !== "Uint8Array") return response
  return HttpServerResponse.setBody(
    response,
    HttpBody.stream(Stream.succeed(body.body), response.headers["content-type"] ?? body.contentType, body.contentLength)
  )
}

/**
 * What becomes of a body the answer did not need, once the answer is known. An answer given before the
 * body was read to its end (401, 403, 415, 422, 429 from the headers alone, an upload refused as it
 * streams) keeps the connection while the rest of the body is read and discarded (`discardRest`), so the
 * client finishes sending and then reads the answer (a client that is still writing when the server
 * closes gets EPIPE instead of the answer), and the connection serves its next request. A client that
 * pauses 2 s, goes on past 10 s or sends more than `limit` bytes is cut off, so that a refused request
 * never holds its connection for the request time-out. A 413 always closes the connection, after a
 * lingering close (`lingerThenClose`): its body is larger than anything worth keeping it for.
 */
export const settleUnreadBody = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  limit: number
): HttpServerResponse.HttpServerResponse => {
  const incoming = incomingOf(request)
  if (response.status === 413) {
    // Also for a client that asked first (Expect: 100-continue) and had no 100: it may send the body
    // anyway once its wait for the 100 ends.
    lingerThenClose(incoming)
    return HttpServerResponse.setHeader(response, "connection", "close")
  }
  // Not `complete` (the whole body received): a body received but left unread, paused by a reader that
  // stopped (an upload refused while staging was behind), holds the socket's reading stopped, and with it
  // the connection's next request.
  if (incoming.readableEnded || incoming.destroyed) return response
  discardRest(incoming, limit)
  return incoming.complete ? response : keepConnectionOpen(request, incoming, response)
}
