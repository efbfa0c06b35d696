/**
 * Run by the portal's build (`node dist/precompress.js`): writes the brotli copy of every file of the
 * portal as the server renders it from the repository's docs/ (or DOCS_DIR) to dist/precompressed
 * (./Precompressed.ts). Copies already there are kept, so a build after an edit compresses only what changed.
 */
import { fileURLToPath } from "node:url"
import { renderPortal } from "./PortalHttp.js"
import { write } from "./Precompressed.js"

// Beside this script, in the build: where Precompressed.directory() finds the package's build.
const out = fileURLToPath(new URL("precompressed", import.meta.url))
const docs = process.env.DOCS_DIR ?? fileURLToPath(new URL("../../../docs", import.meta.url))
const started = performance.now()
const files = renderPortal(docs)
const compressed = await write(
  out,
  files.map((file) => file.body)
)
process.stdout.write(
  `brotli: compressed ${compressed} of ${files.length} portal files in ${Math.round(performance.now() - started)} ms: ${out}\n`
)
