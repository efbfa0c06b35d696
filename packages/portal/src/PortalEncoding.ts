/**
 * A portal file as it goes over the wire: brotli, gzip or as it is, by the request's `Accept-Encoding`,
 * each with its own ETag. The Scalar bundle is 5 MB; brotli at its best quality makes it 1.1 MB and gzip
 * 1.5 MB. A file is compressed once, on its first compressed request. Brotli comes from the copies the
 * portal's build made (./Precompressed.ts) when they are of this content, else it is made in zlib's thread
 * pool without being awaited (10-27 s for the bundle); until it is ready, gzip goes. Gzip is made when a
 * request would take it (0.3 s for the bundle), in the thread pool. A server that never serves the portal
 * never reads nor compresses it.
 */
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"

export type Encoding = "br" | "gzip" | "identity"

export type Compressed = Exclude<Encoding, "identity">

/** Below this size a compressed file saves less than the round trip's headers. */
export const worthCompressing = 1024

/**
 * The encoding to send (RFC 9110 §12.5.3): of brotli and gzip, among those `available`, the one the client
 * weighs most (brotli on a tie); a coding not named weighs what `*` does, else nothing. Else the file as it
 * is, which every client takes.
 */
export const negotiate = (acceptEncoding: string | undefined, available: ReadonlyArray<"br" | "gzip">): Encoding => {
  const weights = new Map<string, number>()
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [coding = "", ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase())
    if (coding === "") continue
    const q = parameters.find((parameter) => parameter.startsWith("q="))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    weights.set(coding, Number.isFinite(weight) ? weight : 0)
  }
  let best: Encoding = "identity"
  let bestWeight = 0
  for (const coding of ["br", "gzip"] as const) {
    const weight = weights.get(coding) ?? weights.get("*") ?? 0
    if (available.includes(coding) && weight > bestWeight) [best, bestWeight] = [coding, weight]
  }
  return best
}

/** One encoding of a file: its bytes and its entity tag. */
export interface Representation {
  readonly encoding: Encoding
  readonly body: Uint8Array
  readonly etag: string
}

const gzipAsync = promisify(gzip)
const brotliAsync = promisify(brotliCompress)

/**
 * Compresses at the best quality of each coding (the portal's files are compressed once, then served
 * often), or brotli at `brotliQuality` (0-11) for many files compressed once and served seldom.
 */
export const compress = (
  body: Uint8Array,
  encoding: Compressed,
  brotliQuality: number = constants.BROTLI_MAX_QUALITY
): Promise<Uint8Array> =>
  encoding === "br"
    ? brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength
        }
      })
    : gzipAsync(body, { level: constants.Z_BEST_COMPRESSION })

/** Where brotli copies made beforehand are found: the copy of the content with this SHA-256 (hex). */
export type BrotliCopies = (sha256: string) => Promise<Uint8Array | undefined>

const none: BrotliCopies = () => Promise.resolve(undefined)

/** The representations of one file's content, brotli read from `copies` or made, gzip made on first use. */
export const encodings = (content: string, copies: BrotliCopies = none) => {
  const body = new TextEncoder().encode(content)
  const digest = createHash("sha256").update(body).digest()
  const hash = digest.toString("base64url").slice(0, 22)
  const identity: Representation = { encoding: "identity", body, etag: `"${hash}"` }
  const ready = new Map<Compressed, Representation>()
  const keep = (encoding: Compressed) => (compressed: Uint8Array) => {
    if (compressed.byteLength < body.byteLength)
      ready.set(encoding, { encoding, body: compressed, etag: `"${hash}-${encoding}"` })
  }
  // A failed compression leaves the file to go as it is.
  const compressed = (encoding: Compressed) => compress(body, encoding).then(keep(encoding), () => undefined)
  const worthIt = body.byteLength >= worthCompressing
  let brotliStarted: Promise<void> | undefined
  let gzipStarted: Promise<void> | undefined
  // The build's copy when it made one of this content; else brotli in the background.
  const startBrotli = () =>
    (brotliStarted ??= copies(digest.toString("hex")).then((copy) => {
      if (copy !== undefined) keep("br")(copy)
      else void compressed("br")
    }))
  const startGzip = () => (gzipStarted ??= compressed("gzip"))
  return {
    /**
     * The representation for a request's `Accept-Encoding`. The first compressed request of a file waits
     * for the brotli copy to be read; a request that would take gzip over what is ready waits for gzip.
     */
    select: async (acceptEncoding: string | undefined): Promise<Representation> => {
      if (!worthIt || negotiate(acceptEncoding, ["br", "gzip"]) === "identity") return identity
      await startBrotli()
      if (negotiate(acceptEncoding, [...ready.keys(), "gzip"]) === "gzip") await startGzip()
      const encoding = negotiate(acceptEncoding, [...ready.keys()])
      return encoding === "identity" ? identity : ready.get(encoding)!
    }
  }
}

/** Whether an `If-None-Match` header names this entity tag (a weak comparison, RFC 9110 §13.1.2). */
export const notModified = (ifNoneMatch: string | undefined, etag: string): boolean =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })
