import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))

interface Manifest {
  readonly name: string
  readonly bin?: unknown
  readonly exports?: Record<string, { readonly types: string; readonly default: string }>
}

/**
 * Every entry point of the library packages, but `/testing` ones, which load only under vitest. The server
 * is an application (its `bin`), built by `npm start` from source.
 */
const entries = readdirSync(join(root, "packages")).flatMap((folder) => {
  const manifest = JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8")) as Manifest
  if (manifest.bin !== undefined) return []
  return Object.entries(manifest.exports ?? {})
    .filter(([subpath]) => subpath !== "./testing")
    .map(([subpath, target]) => ({
      folder,
      specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
      target
    }))
})

// npm install builds the packages (the root's prepare script), so a script in the clone can import them,
// and a TypeScript project outside the workspace finds their declarations, without a manual build.
describe("the workspace packages after npm install", () => {
  it("have the JavaScript and the declarations their exports maps name", () => {
    const missing = entries.flatMap(({ folder, target }) =>
      [target.default, target.types]
        .filter((file) => !existsSync(join(root, "packages", folder, file)))
        .map((file) => `packages/${folder}/${file}`)
    )
    expect(missing).toEqual([])
  })

  it("load in plain node, outside vitest", { timeout: 60_000 }, async () => {
    const script = `for (const name of ${JSON.stringify(entries.map((entry) => entry.specifier))}) { const module = await import(name); if (Object.keys(module).length === 0) throw new Error(name + " exports nothing") }`
    await run(process.execPath, ["--input-type=module", "-e", script], { cwd: root })
  })
})
