/**
 * An application outside the monorepo, for tests that check what a user gets from the registry: a new
 * folder with its own package.json, the workspace packages as the tarballs `npm pack` makes (rebuilt
 * first when their sources changed) and the other dependencies from npm, installed as a user's install
 * would be.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

/** execFile as a promise: `{ stdout, stderr }`, or a failure carrying them. */
export const run = promisify(execFile)

/** The repository's root folder. */
export const root = fileURLToPath(new URL("../../..", import.meta.url))

/** The build tool of the packages (their `dist`), also what compiles an example for a packed install. */
export const tsup = join(root, "node_modules", ".bin", "tsup")

const npm = process.platform === "win32" ? "npm.cmd" : "npm"

/** The newest (or oldest) modification time of the files under `dir`. */
const mtime = (dir: string, pick: (a: number, b: number) => number): number =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)
    .reduce((a, b) => pick(a, b))

/** Whether a package's build is missing or older than its sources. */
const stale = (folder: string) => {
  const dist = join(root, "packages", folder, "dist")
  return !existsSync(dist) || mtime(join(root, "packages", folder, "src"), Math.max) > mtime(dist, Math.min)
}

/**
 * npm install built the packages; after a change of their sources, rebuilds those named (folders under
 * packages/), without emptying dist first: other test files may be loading it.
 */
export const rebuildStale = async (packages: ReadonlyArray<string>) => {
  for (const folder of packages.filter(stale))
    await run(tsup, ["--silent", "--no-clean"], { cwd: join(root, "packages", folder) })
}

/** The version of a package the workspace has, so that an application asks for the same line. */
export const installed = (name: string) =>
  (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version

/** `^<the workspace's version>` of each package named: what an application adds next to ours. */
export const sameLine = (...names: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(names.map((name) => [name, `^${installed(name)}`]))

export interface PackedApp {
  /** The application's folder. */
  readonly dir: string
  /** The tarballs `npm pack` made in it, one per workspace package. */
  readonly tarballs: ReadonlyArray<string>
  /** Runs `npm install` there (from npm's cache when it can). */
  readonly install: () => Promise<void>
  /** Removes the folder. */
  readonly remove: () => void
}

/**
 * Packs the workspace packages in `packages` (folder names under packages/) into a new folder named
 * `<prefix>…` and writes its package.json: `name`, ESM, the tarballs and `dependencies` as its
 * dependencies, `devDependencies` as its dev dependencies. Nothing is installed until `install()`.
 */
export const packedApp = async (options: {
  readonly prefix: string
  readonly name: string
  readonly packages: ReadonlyArray<string>
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}): Promise<PackedApp> => {
  const dir = mkdtempSync(join(tmpdir(), options.prefix))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    await rebuildStale(options.packages)
    await run(
      npm,
      [
        "pack",
        "--silent",
        "--pack-destination",
        dir,
        ...options.packages.flatMap((folder) => ["-w", `packages/${folder}`])
      ],
      { cwd: root }
    )
    const tarballs = readdirSync(dir).filter((file) => file.endsWith(".tgz"))
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: options.name,
        private: true,
        type: "module",
        dependencies: {
          ...Object.fromEntries(
            tarballs.map((file) => [
              `@catalog-sync/${file.replace(/^catalog-sync-(.*)-\d+\.\d+\.\d+\.tgz$/, "$1")}`,
              `file:./${file}`
            ])
          ),
          ...options.dependencies
        },
        devDependencies: options.devDependencies ?? {}
      })
    )
    const install = async () => {
      await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
        cwd: dir,
        maxBuffer: 16 * 1024 * 1024
      })
    }
    return { dir, tarballs, install, remove }
  } catch (error) {
    remove()
    throw error
  }
}
