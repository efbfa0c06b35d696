/**
 * The `prepack` script of every published package: `npm pack` and `npm publish` stop, with what to run,
 * when a file the package's `exports` or `bin` names is missing, or when a built entry is older than
 * its sources. A tarball is then never empty of JavaScript, nor one change behind. It builds nothing:
 * `npm run build` at the repository's root does (tsup for `dist`, `tsc -b` for the declarations).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const folder = process.cwd()
const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"))

/** Every file an `exports` target (but the workspace's source condition) or a `bin` names. */
const targets = (value) =>
  typeof value === "string"
    ? [value]
    : Object.entries(value ?? {}).flatMap(([key, inner]) => (key === "@catalog-sync/source" ? [] : targets(inner)))

/** The modification times of the files under `dir`. */
const times = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)

const problems = []
const named = [...targets(manifest.exports), ...targets(manifest.bin)]
if (!named.some((file) => file.endsWith(".js"))) problems.push("its exports and bin name no JavaScript file")
for (const file of named) if (!existsSync(join(folder, file))) problems.push(`${file} is missing`)
// Each built entry is rewritten by a build (stale chunks may stay behind): it must be newer than every source.
const sources = existsSync(join(folder, "src")) ? times(join(folder, "src")) : []
const changed = sources.length === 0 ? 0 : Math.max(...sources)
const behind = named.filter(
  (file) => file.endsWith(".js") && existsSync(join(folder, file)) && statSync(join(folder, file)).mtimeMs < changed
)
if (behind.length > 0) problems.push(`${behind.join(", ")} older than src`)

if (problems.length > 0) {
  process.stderr.write(
    `${manifest.name}: not packed, ${problems.join("; ")}. Run \`npm run build\` at the repository's root first.\n`
  )
  process.exit(1)
}
