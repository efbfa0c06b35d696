/**
 * `npm install` builds the workspace packages, so that they can be imported right away. It does what
 * `npm run build` does: the type declarations of every package in one `tsc -b` (TypeScript 7, the native
 * compiler), then each workspace's own `build` script (tsup), as many at a time as the machine has cores.
 * It prints a line for each as it finishes: a silent install cannot be told from a hung one. An install
 * without the dev dependencies (`npm ci --omit=dev`) has no compiler and skips the build.
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const tools = ["typescript-7", "tsup"].filter((name) => !existsSync(join(root, "node_modules", name, "package.json")))
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
const step = (command, args, what) =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(command, args, { cwd: root, shell: command === npm && npm === "npm.cmd" })
    const output = []
    child.stdout.on("data", (chunk) => output.push(chunk))
    child.stderr.on("data", (chunk) => output.push(chunk))
    child.on("error", (error) => output.push(Buffer.from(String(error))))
    child.on("close", (status) => {
      if (status !== 0) {
        process.stderr.write(`prepare: ${what} failed\n${Buffer.concat(output).toString()}\n`)
        process.exit(status ?? 1)
      }
      resolve(((Date.now() - started) / 1000).toFixed(1))
    })
  })

const workspaces = readJson("package.json").workspaces.flatMap((pattern) => {
  const folder = pattern.replace(/\/\*$/, "")
  return readdirSync(join(root, folder))
    .sort()
    .filter((name) => existsSync(join(root, folder, name, "package.json")))
    .map((name) => `${folder}/${name}`)
})
const built = workspaces.filter((folder) => readJson(join(folder, "package.json")).scripts?.build !== undefined)

const started = Date.now()
const cores = Math.max(1, availableParallelism())
process.stdout.write(
  `prepare: building ${built.length} packages: type declarations (tsc -b), then JavaScript (tsup, ${cores} at a time)\n`
)
const seconds = await step(process.execPath, [join(root, "node_modules", "typescript-7", "bin", "tsc"), "-b"], "tsc -b")
process.stdout.write(`  declarations of ${readJson("tsconfig.json").references.length} packages  ${seconds} s\n`)

const width = Math.max(...built.map((folder) => basename(folder).length))
const queue = [...built]
const worker = async () => {
  for (let folder = queue.shift(); folder !== undefined; folder = queue.shift()) {
    const took = await step(npm, ["run", "-s", "build", "-w", folder, "--", "--silent"], `${folder}: build`)
    process.stdout.write(`  ${basename(folder).padEnd(width)}  JavaScript ${took} s\n`)
  }
}
await Promise.all(Array.from({ length: cores }, worker))
const total = Math.round((Date.now() - started) / 1000)
process.stdout.write(`prepare: built in ${Math.floor(total / 60)} min ${total % 60} s\n`)
