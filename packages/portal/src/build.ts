/**
 * `npm run portal [-- <out dir>]`: writes the developer portal to a folder for static hosting (default
 * build/portal), with the packages' API reference under api/ when `npm run docs` has built it. Beside
 * each text file worth compressing go its `.br` and `.gz` (./StaticPortal.ts), for hosts that send them
 * as they are; caching `assets/*` for good (their names change with their content) is the host's
 * configuration.
 */
import { rmSync } from "node:fs"
import { join, resolve } from "node:path"
import * as PackageReference from "./PackageReference.js"
import { renderPortal } from "./PortalHttp.js"
import * as Precompressed from "./Precompressed.js"
import * as StaticPortal from "./StaticPortal.js"

const out = resolve(process.argv[2] ?? "build/portal")
const docs = resolve(process.env.DOCS_DIR ?? "docs")
const started = performance.now()
const files = renderPortal(docs)
rmSync(out, { recursive: true, force: true })
const copiesDir = Precompressed.directory()
let copies = await StaticPortal.writePortal(
  out,
  files,
  copiesDir === undefined ? () => Promise.resolve(undefined) : Precompressed.reader(copiesDir)
)
const reference = PackageReference.directoryOf(docs)
const withReference = PackageReference.isBuilt(reference)
if (withReference) copies += await StaticPortal.copyPackageReference(reference, join(out, "api"))
process.stdout.write(
  `wrote ${files.length} files to ${out}${withReference ? ", and the packages' API reference to api/" : ""}, ` +
    `with ${copies} compressed copies (.br, .gz) in ${Math.round(performance.now() - started)} ms\n`
)
