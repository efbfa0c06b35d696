/**
 * A portal file as it goes over the wire: brotli, gzip or as it is, by the request's `Accept-Encoding`,
 * each with its own ETag. The Scalar bundle is 5 MB; brotli at its best quality makes it 1.1 MB and gzip
 * 1.5 MB. A file is compressed once, on its first request: from the copies the portal's build made
 * (./Precompressed.ts) when they are of this content, else in zlib's thread pool: gzip (a quarter second
 * for the bundle) is awaited by that request, brotli (10 s and more for the bundle) is not; until it is
 * ready, gzip goes. A server that never serves the portal never reads nor compresses it.
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

/** Compresses at the best quality of each coding (the portal's files are compressed once, then served often). */
export const compress = (body: Uint8Array, encoding: Compressed): Promise<Uint8Array> =>
  encoding === "br"
    ? brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength
        }
      })
    : gzipAsync(body, { level: constants.Z_BEST_COMPRESSION })

/** Where compressed copies made beforehand are found: the copy of the content with this SHA-256 (hex). */
export type CompressedCopies = (sha256: string, encoding: Compressed) => Promise<Uint8Array | undefined>

const none: CompressedCopies = () => Promise.resolve(undefined)

/** The representations of one file's content, read from `precompressed` or compressed on first use. */
export const encodings = (content: string, precompressed: CompressedCopies = none) => {
  const body = new TextEncoder().encode(content)
  const digest = createHash("sha256").update(body).digest()
  const hash = digest.toString("base64url").slice(0, 22)
  const identity: Representation = { encoding: "identity", body, etag: `"${hash}"` }
  const ready = new Map<Compressed, Representation>()
  let started: Promise<void> | undefined
  const keep = (encoding: Compressed) => (compressed: Uint8Array) => {
    if (compressed.byteLength < body.byteLength)
      ready.set(encoding, { encoding, body: compressed, etag: `"${hash}-${encoding}"` })
  }
  // A failed compression leaves the file to go as it is.
  const compressed = (encoding: Compressed) => compress(body, encoding).then(keep(encoding), () => undefined)
  const hex = digest.toString("hex")
  // The build's copies when it made them of this content; else brotli in the background, gzip awaited.
  const start = () => {
    if (started !== undefined) return started
    if (body.byteLength < worthCompressing) return (started = Promise.resolve())
    const copies = Promise.all([precompressed(hex, "br"), precompressed(hex, "gzip")])
    return (started = copies.then(([br, gz]) => {
      if (br !== undefined) keep("br")(br)
      else void compressed("br")
      return gz !== undefined ? keep("gzip")(gz) : compressed("gzip")
    }))
  }
  return {
    /** The representation for a request's `Accept-Encoding`; the first request of a file waits for gzip (or the copies). */
    select: async (acceptEncoding: string | undefined): Promise<Representation> => {
      if (negotiate(acceptEncoding, ["br", "gzip"]) !== "identity") await start()
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
