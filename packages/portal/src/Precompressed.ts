/**
 * Brotli copies of the portal's files, made once by the portal's build (`dist/precompressed`) rather than
 * by every server: brotli at its best quality takes 10-27 s of a core for Scalar's 5 MB bundle, gzip a
 * third of a second, so only brotli is shipped and gzip is made by the server when asked. Each copy is
 * named for the SHA-256 of the content it holds (`<hex>.br`), so a server uses a copy only for the very
 * content it serves, and compresses anything else itself.
 */
import { compress, type BrotliCopies, worthCompressing } from "./PortalEncoding.js"
import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const fileName = (hash: string) => `${hash}.br`

/** The SHA-256 (hex) a copy of `body` is named for. */
export const hashOf = (body: Uint8Array): string => createHash("sha256").update(body).digest("hex")

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

/** Reads the brotli copy of the content with this hash from `dir`, if there is one. */
export const reader =
  (dir: string): BrotliCopies =>
  (hash) =>
    readFile(join(dir, fileName(hash))).then(
      (bytes) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      () => undefined
    )

/**
 * Writes the brotli copies of `contents` to `dir` (when smaller than the content), keeping those already
 * there and removing any other file. Returns how many it compressed.
 */
export const write = async (dir: string, contents: ReadonlyArray<string>): Promise<number> => {
  mkdirSync(dir, { recursive: true })
  const existing = new Set(readdirSync(dir))
  const wanted = new Set<string>()
  const missing: Array<{ readonly body: Uint8Array; readonly name: string }> = []
  for (const content of contents) {
    const body = new TextEncoder().encode(content)
    if (body.byteLength < worthCompressing) continue
    const name = fileName(hashOf(body))
    if (wanted.has(name)) continue
    wanted.add(name)
    if (!existing.has(name)) missing.push({ body, name })
  }
  // In zlib's thread pool, side by side: the build waits for Scalar's brotli, not for the sum.
  await Promise.all(
    missing.map(async ({ body, name }) => {
      const bytes = await compress(body, "br")
      if (bytes.byteLength < body.byteLength) writeFileSync(join(dir, name), bytes)
    })
  )
  for (const name of existing) if (!wanted.has(name)) rmSync(join(dir, name), { force: true })
  return missing.length
}
