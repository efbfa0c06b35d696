/**
 * The portal as files for a static host (`npm run portal`): each file as it is and, beside each text file
 * worth compressing, its `.br` and `.gz` (each when smaller than the file), for hosts that send such a
 * copy to a client that accepts it (nginx `gzip_static` and `brotli_static`, Caddy's `file_server {
 * precompressed br gzip }`). The portal's files go brotli at its best quality, read from the build's
 * copies (./Precompressed.ts) when they are of this content: Scalar's bundle takes 10-27 s otherwise. The
 * packages' API reference (1,100 pages, 17 MB) goes brotli at quality 5: 0.7 s of a core for 2.37 MB,
 * where quality 11 takes 48 s for 2.08 MB; gzip (best) takes 1.3 s for 2.70 MB.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import type { PortalFile } from "./Portal.js"
import { type BrotliCopies, compress, worthCompressing } from "./PortalEncoding.js"
import { hashOf } from "./Precompressed.js"

/** The brotli quality of the packages' API reference: many pages, compressed at each `npm run portal`. */
export const packageReferenceBrotliQuality = 5

/** Files a static host sends as text, and so compressed; images and fonts are compressed already. */
const isText = (path: string) => /\.(html|css|js|mjs|json|svg|txt|xml|map)$/.test(path)

/** At most this many files are compressed at once: each compression holds its own buffers. */
const batch = 16

const inBatches = async <A, B>(items: ReadonlyArray<A>, f: (item: A) => Promise<B>): Promise<Array<B>> => {
  const results: Array<B> = []
  for (let start = 0; start < items.length; start += batch)
    results.push(...(await Promise.all(items.slice(start, start + batch).map(f))))
  return results
}

/** Writes `body` to `target` and, when worth it, `target.br` and `target.gz`. Returns how many copies it wrote. */
const writeWithCopies = async (
  target: string,
  body: Uint8Array,
  brotli: () => Promise<Uint8Array>
): Promise<number> => {
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, body)
  if (body.byteLength < worthCompressing || !isText(target)) return 0
  const [br, gz] = await Promise.all([brotli(), compress(body, "gzip")])
  const smaller = [
    { bytes: br, suffix: ".br" },
    { bytes: gz, suffix: ".gz" }
  ].filter(({ bytes }) => bytes.byteLength < body.byteLength)
  for (const { bytes, suffix } of smaller) writeFileSync(`${target}${suffix}`, bytes)
  return smaller.length
}

/** Writes the portal's files under `out`, each with its compressed copies; returns how many copies. */
export const writePortal = async (
  out: string,
  files: ReadonlyArray<PortalFile>,
  copies: BrotliCopies
): Promise<number> => {
  const written = await inBatches(files, (file) => {
    const body = new TextEncoder().encode(file.body)
    return writeWithCopies(join(out, file.path), body, async () => (await copies(hashOf(body))) ?? compress(body, "br"))
  })
  return written.reduce((sum, count) => sum + count, 0)
}

/** Copies the packages' API reference from `from` to `to`, each text file with its compressed copies; returns how many copies. */
export const copyPackageReference = async (from: string, to: string): Promise<number> => {
  const paths = readdirSync(from, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(from, join(entry.parentPath, entry.name)))
  const written = await inBatches(paths, (path) => {
    const body = new Uint8Array(readFileSync(join(from, path)))
    return writeWithCopies(join(to, path), body, () => compress(body, "br", packageReferenceBrotliQuality))
  })
  return written.reduce((sum, count) => sum + count, 0)
}
