import { MultipartParser } from "effect/http"
import type { Readable } from "node:stream"

/**
 * What the reading of an upload form checks as the body streams, and how each refusal reads (`R`, the
 * caller's error values: this module knows none of them).
 */
export interface FormRules<R> {
  /** Bytes of the whole body, framing included. */
  readonly maxBodyBytes: number
  /** Parts of a valid form (its fields and one file); the first part past it is refused. */
  readonly maxParts: number
  /** Bytes of one field's value. */
  readonly maxFieldBytes: number
  /** A field as it arrives, given the fields before it: a refusal stops the reading. */
  readonly field: (key: string, value: string, before: Readonly<Record<string, string>>) => R | undefined
  /** A field whose bytes are not text in its charset (UTF-8 unless its part names another). */
  readonly notText: (key: string) => R
  /** A file part as it starts, named `name`, after `earlier` file parts: a refusal stops the reading. */
  readonly file: (name: string, earlier: number) => R | undefined
  readonly tooLarge: () => R
  readonly malformed: (error: MultipartParser.MultipartError) => R
  /** The body could not be read to its end (the client cut it off, a socket error). */
  readonly unreadable: () => R
}

/** The answer a refusal carries out of a file's chunks, so that the caller tells it from any other throw. */
export class FormRefused<R> {
  constructor(readonly refusal: R) {}
}

/** Once the form is done with it: a value, or the refusal that stopped the reading. */
export type Settled<A, R> =
  { readonly _tag: "Done"; readonly value: A } | { readonly _tag: "Refused"; readonly refusal: R }

/**
 * Buffered bytes of the file part past which the socket is paused until the consumer (staging) catches up:
 * an upload holds about this much in memory however slowly it is written.
 */
export const fileBufferBytes = 1024 * 1024

const done: IteratorReturnResult<undefined> = { done: true, value: undefined }

const badHeaders: MultipartParser.MultipartError = {
  _tag: "BadHeaders",
  error: { _tag: "Failure", reason: "InvalidHeaderValue", headers: {} }
}

/**
 * The file part's bytes as they arrive, for one consumer. A refusal while the part is still arriving (the
 * body over its limit, cut off, the reading stopped) fails the consumer's next read with `FormRefused`;
 * once every byte of the part has arrived, the consumer reads them all whatever comes after the part, so
 * that its own refusals (staging's limits) come first, as they would part by part. `return` ends a read
 * that is waiting at once (an interrupted consumer must not wait for the client's next bytes).
 */
class FileChunks<R> implements AsyncIterableIterator<Uint8Array> {
  private readonly chunks: Array<Uint8Array> = []
  private buffered = 0
  private ended = false
  private refused: FormRefused<R> | undefined
  private finished = false
  private waiting:
    | { readonly resolve: (result: IteratorResult<Uint8Array>) => void; readonly reject: (error: unknown) => void }
    | undefined

  constructor(
    private readonly full: () => void,
    private readonly drained: () => void
  ) {}

  push(chunk: Uint8Array) {
    this.chunks.push(chunk)
    this.buffered += chunk.byteLength
    if (this.buffered > fileBufferBytes) this.full()
    this.settle()
  }

  end() {
    this.ended = true
    this.settle()
  }

  refuse(refusal: R) {
    if (this.ended || this.finished) return
    this.refused ??= new FormRefused(refusal)
    this.settle()
  }

  [Symbol.asyncIterator]() {
    return this
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject }
      this.settle()
    })
  }

  return(): Promise<IteratorResult<Uint8Array>> {
    this.finished = true
    this.chunks.length = 0
    this.buffered = 0
    this.settle()
    return Promise.resolve(done)
  }

  /** Answers the waiting read, if there is one and an answer. */
  private settle() {
    const waiting = this.waiting
    if (waiting === undefined) return
    if (this.finished) {
      this.waiting = undefined
      return waiting.resolve(done)
    }
    if (this.refused !== undefined) {
      this.waiting = undefined
      return waiting.reject(this.refused)
    }
    const chunk = this.chunks.shift()
    if (chunk !== undefined) {
      this.waiting = undefined
      this.buffered -= chunk.byteLength
      if (this.chunks.length === 0) this.drained()
      return waiting.resolve({ done: false, value: chunk })
    }
    if (this.ended) {
      this.waiting = undefined
      this.finished = true
      waiting.resolve(done)
    }
  }
}

/** What a part with this content type is taken for: a field, as `effect/http`'s Multipart has it. */
const isFilePart = (info: MultipartParser.PartInfo) =>
  !info.contentType.includes("application/json") && MultipartParser.defaultIsFile(info)

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * A field's value, or undefined when its bytes are not text in the part's charset: the parser's own decode
 * (`MultipartParser.decodeField`) puts U+FFFD in place of bad bytes, which would be stored as if sent.
 */
const decodeField = (info: MultipartParser.PartInfo, bytes: Uint8Array): string | undefined => {
  const charset = info.contentTypeParameters["charset"]?.toLowerCase() ?? "utf-8"
  let decoder = utf8
  if (charset !== "utf-8" && charset !== "utf8" && charset !== "") {
    try {
      decoder = new TextDecoder(charset, { fatal: true })
    } catch {
      // An unknown charset is read as UTF-8, as the parser does.
    }
  }
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** A form being read: see `readForm`. */
export interface UploadForm<R> {
  /** The fields read so far; every field once the form has ended. */
  readonly fields: Readonly<Record<string, string>>
  /**
   * Calls back once: with the file part's chunks as soon as it starts, or undefined when the form ended
   * without one, or the refusal that stopped the reading first.
   */
  readonly whenFile: (callback: (settled: Settled<AsyncIterable<Uint8Array> | undefined, R>) => void) => void
  /** Calls back once, when the whole form has been read (fields after the file included), or refused. */
  readonly whenEnded: (callback: (settled: Settled<void, R>) => void) => void
  /**
   * Stops reading: the body's listeners are removed (what is left of it is the caller's to drain); a form
   * not read to its end is refused as `unreadable`, for the file's consumer too.
   */
  readonly stop: () => void
}

/**
 * Reads a multipart/form-data upload as it streams, with Effect's MultipartParser fed straight from the
 * request's data events: fields are kept, checked as they arrive, and the file part's bytes are handed
 * on as an async iterable, the request paused while more than `fileBufferBytes` of them wait. Every rule
 * of `rules` is checked as its bytes arrive, so nothing after a refusal is read. The reading starts at
 * once; an Effect stream per chunk and parts channel cost an upload more CPU than the parse itself.
 */
export const readForm = <R>(
  body: Readable,
  headers: Readonly<Record<string, string>>,
  rules: FormRules<R>
): UploadForm<R> => {
  const fields: Record<string, string> = {}
  let files = 0
  let file: FileChunks<R> | undefined
  let refusal: { readonly value: R } | undefined
  let ended = false
  let bodyBytes = 0
  let stopped = false
  // While the file's consumer is behind, the body stays paused whatever else asks for it to flow.
  let backedUp = false
  const fileWaiters: Array<(settled: Settled<AsyncIterable<Uint8Array> | undefined, R>) => void> = []
  const endWaiters: Array<(settled: Settled<void, R>) => void> = []

  const settleFile = () => {
    if (refusal !== undefined && file === undefined)
      for (const waiter of fileWaiters.splice(0)) waiter({ _tag: "Refused", refusal: refusal.value })
    else if (file !== undefined || ended)
      for (const waiter of fileWaiters.splice(0)) waiter({ _tag: "Done", value: file })
  }
  const settleEnd = () => {
    if (refusal !== undefined)
      for (const waiter of endWaiters.splice(0)) waiter({ _tag: "Refused", refusal: refusal.value })
    else if (ended) for (const waiter of endWaiters.splice(0)) waiter({ _tag: "Done", value: undefined })
  }

  const detach = () => {
    if (stopped) return
    stopped = true
    body.off("data", onData)
    body.off("end", onEnd)
    body.off("error", onUnreadable)
    body.off("close", onClose)
    // Left paused if it is: the caller drains what is left, or closes the connection.
    backedUp = false
  }

  const refuse = (value: R) => {
    if (refusal !== undefined || ended) return
    refusal = { value }
    detach()
    file?.refuse(value)
    settleFile()
    settleEnd()
  }

  const parser = MultipartParser.make({
    headers: headers,
    maxParts: rules.maxParts,
    maxFieldSize: rules.maxFieldBytes,
    isFile: isFilePart,
    onField: (info, bytes) => {
      if (refusal !== undefined) return
      const value = decodeField(info, bytes)
      if (value === undefined) return refuse(rules.notText(info.name))
      const refused = rules.field(info.name, value, fields)
      if (refused !== undefined) return refuse(refused)
      fields[info.name] = value
    },
    onFile: (info) => {
      if (refusal !== undefined) return () => {}
      const refused = rules.file(info.name, files++)
      if (refused !== undefined) {
        refuse(refused)
        return () => {}
      }
      const chunks = new FileChunks<R>(
        () => {
          backedUp = true
          body.pause()
        },
        () => {
          if (!backedUp) return
          backedUp = false
          if (!stopped) body.resume()
        }
      )
      file = chunks
      settleFile()
      return (chunk) => {
        if (refusal !== undefined) return
        if (chunk === null) chunks.end()
        else chunks.push(chunk)
      }
    },
    onError: (error) => refuse(rules.malformed(error)),
    onDone: () => {
      if (refusal !== undefined) return
      ended = true
      detach()
      settleFile()
      settleEnd()
    }
  })

  // A throw from the parser, run in the body's data listener, would take the process down: it refuses
  // the form as malformed instead.
  const parse = (step: () => void) => {
    try {
      step()
    } catch {
      refuse(rules.malformed(badHeaders))
    }
  }

  function onData(chunk: Buffer) {
    bodyBytes += chunk.byteLength
    if (bodyBytes > rules.maxBodyBytes) return refuse(rules.tooLarge())
    parse(() => parser.write(chunk))
  }
  function onEnd() {
    // The parser answers onDone, or onError when the body ended before the form's closing boundary.
    parse(() => parser.end())
    if (!ended) refuse(rules.malformed({ _tag: "EndNotReached" }))
  }
  function onUnreadable() {
    refuse(rules.unreadable())
  }
  // A request closed before its end was cut off by its client.
  function onClose() {
    if (!ended) refuse(rules.unreadable())
  }

  if (body.readableEnded || body.destroyed) refuse(rules.unreadable())
  // The parser refuses a Content-Type without a boundary as it is made: then nothing is read.
  else if (!stopped) {
    body.on("data", onData)
    body.on("end", onEnd)
    body.on("error", onUnreadable)
    body.on("close", onClose)
  }

  return {
    fields,
    whenFile: (callback) => {
      fileWaiters.push(callback)
      settleFile()
    },
    whenEnded: (callback) => {
      endWaiters.push(callback)
      settleEnd()
    },
    stop: () => {
      refuse(rules.unreadable())
      detach()
    }
  }
}
