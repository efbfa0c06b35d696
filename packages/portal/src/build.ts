/** `npm run portal [-- <out dir>]`: writes the developer portal to a folder for static hosting (default build/portal). */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { renderPortal } from "./PortalHttp.js"

const out = resolve(process.argv[2] ?? "build/portal")
const files = renderPortal(resolve(process.env.DOCS_DIR ?? "docs"))
rmSync(out, { recursive: true, force: true })
for (const file of files) {
  const target = join(out, file.path)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, file.body)
}
process.stdout.write(`wrote ${files.length} files to ${out}\n`)
