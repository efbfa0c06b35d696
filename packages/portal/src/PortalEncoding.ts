/**
 * A portal file as it goes over the wire: brotli, gzip or as it is, by the request's `Accept-Encoding`,
 * each with its own ETag. The Scalar bundle is 5 MB; brotli at its best quality makes it 1.1 MB and gzip
 * 1.5 MB. A file is compressed once, on its first request, in zlib's thread pool: gzip (a quarter second
 * for the bundle) is awaited by that request, brotli (15 s and more for the bundle) is not; until it is
 * ready, gzip goes. A server that never serves the portal never compresses it.
 */
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"

export type Encoding = "br" | "gzip" | "identity"

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

/** Below this size a compressed file saves less than the round trip's headers. */
const worthCompressing = 1024

/** The representations of one file's content, compressed on first use. */
export const encodings = (content: string) => {
  const body = new TextEncoder().encode(content)
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 22)
  const identity: Representation = { encoding: "identity", body, etag: `"${hash}"` }
  const ready = new Map<"br" | "gzip", Representation>()
  let gzipped: Promise<void> | undefined
  const keep = (encoding: "br" | "gzip") => (compressed: Uint8Array) => {
    if (compressed.byteLength < body.byteLength)
      ready.set(encoding, { encoding, body: compressed, etag: `"${hash}-${encoding}"` })
  }
  const start = () => {
    if (gzipped !== undefined) return gzipped
    if (body.byteLength < worthCompressing) return (gzipped = Promise.resolve())
    // A failed compression leaves the file to go as it is.
    void brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength
      }
    }).then(keep("br"), () => undefined)
    return (gzipped = gzipAsync(body, { level: constants.Z_BEST_COMPRESSION }).then(keep("gzip"), () => undefined))
  }
  return {
    /** The representation for a request's `Accept-Encoding`; the first request of a file waits for gzip. */
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
