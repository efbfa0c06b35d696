/**
 * `npm run portal [-- <out dir>]`: writes the developer portal to a folder for static hosting (default
 * build/portal), with the packages' API reference under api/ when `npm run docs` has built it. A static
 * host sends the files as they are: compressing them and caching `assets/*` for good (their names change
 * with their content) is the host's configuration.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import * as PackageReference from "./PackageReference.js"
import { renderPortal } from "./PortalHttp.js"

const out = resolve(process.argv[2] ?? "build/portal")
const docs = resolve(process.env.DOCS_DIR ?? "docs")
const files = renderPortal(docs)
rmSync(out, { recursive: true, force: true })
for (const file of files) {
  const target = join(out, file.path)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, file.body)
}
const reference = PackageReference.directoryOf(docs)
const withReference = PackageReference.isBuilt(reference)
if (withReference) cpSync(reference, join(out, "api"), { recursive: true })
process.stdout.write(
  `wrote ${files.length} files to ${out}${withReference ? ", and the packages' API reference to api/" : ""}\n`
)
