/**
 * `npm install` builds the workspace packages, so that they can be imported right away. It does what
 * `npm run build` does (the type declarations with `tsc -b`, then each workspace's own `build` script),
 * package by package, and prints a line for each as it goes: the build takes minutes on a small machine,
 * and a silent install cannot be told from a hung one. An install without the dev dependencies
 * (`npm ci --omit=dev`) has no compiler and skips the build.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const tools = ["typescript", "tsup"].filter((name) => !existsSync(join(root, "node_modules", name, "package.json")))
if (tools.length > 0) {
  process.stderr.write(
    `prepare: ${tools.join(" and ")} not installed (dev dependencies omitted); the packages are not built\n`
  )
  process.exit(0)
}

const readJson = (path) => JSON.parse(readFileSync(join(root, path), "utf8"))
// npm is a .cmd script on Windows, which only a shell runs.
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

/** Runs a build step quietly; on failure prints what it said and stops the install with its status. */
const step = (command, args, what) => {
  const started = Date.now()
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8", shell: command === npm && npm === "npm.cmd" })
  if (result.status !== 0) {
    process.stdout.write("failed\n")
    process.stderr.write(`prepare: ${what} failed\n${result.stdout ?? ""}${result.stderr ?? ""}${result.error ?? ""}\n`)
    process.exit(result.status ?? 1)
  }
  return `${what} ${((Date.now() - started) / 1000).toFixed(1)} s`
}

// The root project's references first, in their order (each package after what it imports), then the other
// workspaces in npm's order; each package gets its declarations, then its JavaScript.
const declared = readJson("tsconfig.json").references.map((reference) => reference.path)
const workspaces = readJson("package.json").workspaces.flatMap((pattern) => {
  const folder = pattern.replace(/\/\*$/, "")
  return readdirSync(join(root, folder))
    .sort()
    .filter((name) => existsSync(join(root, folder, name, "package.json")))
    .map((name) => `${folder}/${name}`)
})
const packages = [...declared, ...workspaces.filter((folder) => !declared.includes(folder))]

const started = Date.now()
process.stdout.write(
  `prepare: building ${packages.length} packages: type declarations (tsc -b), then JavaScript (each package's build script); a few minutes on 2 cores\n`
)
const width = Math.max(...packages.map((folder) => basename(folder).length))
for (const folder of packages) {
  process.stdout.write(`  ${basename(folder).padEnd(width)}  `)
  const done = []
  if (declared.includes(folder))
    done.push(
      step(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b", folder], "declarations")
    )
  if (readJson(join(folder, "package.json")).scripts?.build !== undefined)
    done.push(step(npm, ["run", "-s", "build", "-w", folder, "--", "--silent"], "JavaScript"))
  process.stdout.write(`${done.join(", ")}\n`)
}
const seconds = Math.round((Date.now() - started) / 1000)
process.stdout.write(`prepare: built in ${Math.floor(seconds / 60)} min ${seconds % 60} s\n`)
