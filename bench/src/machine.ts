/** The facts of the machine a run was measured on, written with its results. */
import { readFileSync } from "node:fs"
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os"
import { join } from "node:path"
import { root } from "./options.js"

const versionOf = (pkg: string) => {
  try {
    return (JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string })
      .version
  } catch {
    return "missing"
  }
}

export const machine = () => ({
  cores: cpus().length,
  cpu: cpus()[0]?.model,
  memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  free_memory_gb: Math.round((freemem() / 2 ** 30) * 10) / 10,
  os: `${platform()} ${release()}`,
  // Other work on the machine slows every figure: the load average over 1, 5 and 15 minutes at the start.
  load_average: loadavg().map((n) => Math.round(n * 10) / 10),
  node: process.version,
  packages: Object.fromEntries(
    ["effect", "@effect/platform-node", "@effect/sql-pg", "better-sqlite3", "autocannon"].map((p) => [p, versionOf(p)])
  )
})
