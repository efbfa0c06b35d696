/**
 * Compressed copies of the portal's files, made once by the portal's build (`dist/precompressed`) rather
 * than by every server on its first requests: brotli at its best quality takes ~10 s of a core for
 * Scalar's bundle. Each copy is named for the SHA-256 of the content it holds (`<hex>.br`, `<hex>.gz`),
 * so a server uses a copy only for the very content it serves, and compresses anything else itself.
 */
import { type Compressed, compress, worthCompressing } from "./PortalEncoding.js"
import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const fileName = (hash: string, encoding: Compressed) => `${hash}.${encoding === "br" ? "br" : "gz"}`

/**
 * The copies of the portal's build (`dist/precompressed` of this package, found as Node resolves the
 * package: from its sources, from its build, or bundled into the server), if it has been built.
 */
export const directory = (): string | undefined => {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@catalog-sync/portal")), "precompressed")
  } catch {
    return undefined
  }
}

/** Reads the copy of the content with this hash from `dir`, if there is one. */
export const reader =
  (dir: string) =>
  (hash: string, encoding: Compressed): Promise<Uint8Array | undefined> =>
    readFile(join(dir, fileName(hash, encoding))).then(
      (bytes) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      () => undefined
    )

/**
 * Writes the copies of `contents` to `dir`, brotli and gzip (when smaller than the content), keeping
 * those already there and removing those of contents no longer given. Returns how many it compressed.
 */
export const write = async (dir: string, contents: ReadonlyArray<string>): Promise<number> => {
  mkdirSync(dir, { recursive: true })
  const existing = new Set(readdirSync(dir))
  const wanted = new Set<string>()
  const missing: Array<{ readonly body: Uint8Array; readonly encoding: Compressed; readonly name: string }> = []
  for (const content of contents) {
    const body = new TextEncoder().encode(content)
    if (body.byteLength < worthCompressing) continue
    const hash = createHash("sha256").update(body).digest("hex")
    for (const encoding of ["br", "gzip"] as const) {
      const name = fileName(hash, encoding)
      wanted.add(name)
      if (!existing.has(name)) missing.push({ body, encoding, name })
    }
  }
  // In zlib's thread pool, side by side: the build waits for Scalar's brotli, not for the sum.
  await Promise.all(
    missing.map(async ({ body, encoding, name }) => {
      const bytes = await compress(body, encoding)
      if (bytes.byteLength < body.byteLength) writeFileSync(join(dir, name), bytes)
    })
  )
  for (const name of existing) if (!wanted.has(name)) rmSync(join(dir, name), { force: true })
  return missing.length
}
