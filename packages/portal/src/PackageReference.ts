/**
 * The packages' API reference, TypeDoc's HTML that `npm run docs` writes to docs/api (not committed):
 * served from disk under the portal's `api/` when it has been built, and copied beside the static portal
 * by `npm run portal`. It is 20 MB of pages, so the portal neither holds it in memory nor renders it.
 */
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { extname, join, posix } from "node:path"

/** Where `npm run docs` writes the reference, for the portal of `docsDir`. */
export const directoryOf = (docsDir: string): string => join(docsDir, "api")

/** Whether the reference has been built in `directory`. */
export const isBuilt = (directory: string): boolean => existsSync(join(directory, "index.html"))

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml"
}

/**
 * The file at `path` (relative to the reference's root, as the URL gives it; `""` and folders are their
 * `index.html`), or `undefined` when there is none or the path leaves the folder.
 */
export const read = async (
  directory: string,
  path: string
): Promise<{ readonly body: Uint8Array; readonly contentType: string } | undefined> => {
  let relative: string
  try {
    relative = posix.normalize(decodeURIComponent(path))
  } catch {
    return undefined
  }
  if (relative === "." || relative.endsWith("/")) relative = posix.join(relative, "index.html")
  const contentType = contentTypes[extname(relative)]
  if (contentType === undefined || relative.startsWith("../") || relative.startsWith("/") || relative.includes("\0"))
    return undefined
  try {
    return { body: await readFile(join(directory, relative)), contentType }
  } catch {
    return undefined
  }
}

/**
 * The hashes (`'sha256-…'`) of a page's inline scripts, for its Content-Security-Policy: TypeDoc's pages
 * set their theme with one before they paint.
 */
export const inlineScriptHashes = (html: string): ReadonlyArray<string> =>
  [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    ([, script]) => `'sha256-${createHash("sha256").update(script!).digest("base64")}'`
  )
