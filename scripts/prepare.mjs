/**
 * `npm install` builds the workspace packages (`npm run build`), so that they can be imported right away.
 * An install without the dev dependencies (`npm ci --omit=dev`) has no compiler and skips the build.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const tools = ["typescript", "tsup"].filter((name) => !existsSync(join(root, "node_modules", name, "package.json")))
if (tools.length > 0) {
  process.stderr.write(
    `prepare: ${tools.join(" and ")} not installed (dev dependencies omitted); the packages are not built\n`
  )
  process.exit(0)
}
const build = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "-s", "build"], {
  cwd: root,
  stdio: "inherit"
})
process.exit(build.status ?? 1)
