/**
 * `npm start` and `npm run cli`: builds the server's bundle (packages/server/dist) when a file it is made
 * from is newer than it, as make would, so that a command after an edit runs the edit and any other
 * command starts at once (the build takes a couple of seconds, the command under one).
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const bundle = join(root, "packages", "server", "dist", "cli.js")

/** The latest modification time under `path` (a file, or a folder and everything in it). */
const newest = (path) => {
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stats.mtimeMs)
}

// The bundle is made of every workspace package's sources and manifest (its exports decide what is
// bundled), the build settings, the installed packages and this script.
const packages = readdirSync(join(root, "packages")).map((name) => join(root, "packages", name))
const inputs = [
  ...packages.flatMap((dir) => [join(dir, "src"), join(dir, "package.json")]),
  join(root, "packages", "server", "tsup.config.ts"),
  join(root, "tsconfig.base.json"),
  join(root, "package-lock.json"),
  fileURLToPath(import.meta.url)
].filter((path) => existsSync(path))

const built = existsSync(bundle) ? statSync(bundle).mtimeMs : -1
if (inputs.some((path) => newest(path) > built)) {
  // npm is a .cmd script on Windows, which only a shell runs.
  const build = spawnSync("npm", ["run", "-s", "build", "-w", "@catalog-sync/server"], {
    cwd: root,
    shell: process.platform === "win32",
    stdio: ["ignore", process.argv.includes("--quiet") ? "ignore" : "inherit", "inherit"]
  })
  if (build.error !== undefined) process.stderr.write(`could not build the server: ${build.error.message}\n`)
  process.exit(build.status ?? 1)
}
