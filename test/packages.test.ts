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
  readonly files?: ReadonlyArray<string>
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

/** Every `types` target of every package's exports, the server's too: what a TypeScript importer reads. */
const declarations = readdirSync(join(root, "packages")).flatMap((folder) => {
  const manifest = JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8")) as Manifest
  return Object.values(manifest.exports ?? {}).map((target) => ({
    folder,
    types: target.types,
    files: manifest.files ?? []
  }))
})

// The root's `tsc -b` emits every package's declarations into its build folder; a `types` target that no
// build makes leaves a TypeScript application with an import it cannot type.
describe("the published packages' declarations", () => {
  it("exist after the build, for every entry its exports map names", () => {
    expect(declarations.length).toBeGreaterThan(0)
    const missing = declarations
      .filter(({ folder, types }) => !existsSync(join(root, "packages", folder, types)))
      .map(({ folder, types }) => join("packages", folder, types))
    expect(missing).toEqual([])
  })

  it("are in the files the package publishes", () => {
    const unpublished = declarations
      .filter(({ files, types }) => !files.some((entry) => types.startsWith(`./${entry}/`)))
      .map(({ folder, types }) => join("packages", folder, types))
    expect(unpublished).toEqual([])
  })
})

interface Dependencies {
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly engines?: { readonly node?: string }
}

const published = readdirSync(join(root, "packages")).map((folder) => ({
  folder,
  manifest: JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8")) as Manifest & Dependencies
}))

// An application brings its own effect: a package that depended on it would install a second copy, whose
// services and layers the application's runtime cannot provide.
describe("the published packages' dependencies", () => {
  it("take effect, and every @effect package, from the application: peers with a 4.x range, never dependencies", () => {
    for (const { folder, manifest } of published) {
      expect(manifest.peerDependencies?.effect, folder).toMatch(/^\^4\.\d+\.\d+$/)
      const own = Object.keys(manifest.dependencies ?? {}).filter(
        (name) => name === "effect" || name.startsWith("@effect/")
      )
      expect(own, folder).toEqual([])
      const peers = Object.entries(manifest.peerDependencies ?? {}).filter(([name]) => name.startsWith("@effect/"))
      expect(
        peers.filter(([, range]) => !/^\^4\./.test(range)),
        folder
      ).toEqual([])
    }
  })

  it("declare the Node floor their dependencies need", () => {
    for (const { folder, manifest } of published) expect(manifest.engines?.node, folder).toBe(">=22.19")
  })

  it("have one effect in the workspace, a 4.x", async () => {
    const { stdout } = await run("npm", ["ls", "effect", "--all", "--parseable"], { cwd: root })
    expect(stdout.trim().split("\n")).toEqual([join(root, "node_modules", "effect")])
    const effect = JSON.parse(readFileSync(join(root, "node_modules", "effect", "package.json"), "utf8")) as {
      version: string
    }
    expect(effect.version).toMatch(/^4\./)
  })
})
