import { copyFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * A workspace-shaped folder under build/ (so that it resolves `effect` from the repository's node_modules)
 * holding one package, `@catalog-sync/planted`, with the entries `.` (src/index.ts) and `./more`
 * (src/more.ts): what scripts/api-reference.mjs documents when given `--base <folder>`. Returns the folder
 * and where to write the sources.
 */
export const plantPackage = (root: string, name: string) => {
  const base = join(root, "build", `${name}-${process.pid}`)
  const src = join(base, "packages", "planted", "src")
  mkdirSync(src, { recursive: true })
  copyFileSync(join(root, "tsconfig.base.json"), join(base, "tsconfig.base.json"))
  writeFileSync(
    join(base, "packages", "planted", "package.json"),
    JSON.stringify({
      name: "@catalog-sync/planted",
      type: "module",
      exports: {
        ".": { "@catalog-sync/source": "./src/index.ts", default: "./dist/index.js" },
        "./more": { "@catalog-sync/source": "./src/more.ts", default: "./dist/more.js" }
      }
    })
  )
  return { base, src }
}
