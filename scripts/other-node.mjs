#!/usr/bin/env node
/**
 * Runs a command under another Node.js version, fetched with npm from the registry's
 * `node-<platform>-<arch>` package (the Node binary with its headers) into a cache folder. The version is a
 * major (its newest release), a major.minor (that line's newest patch) or an exact version:
 *
 *   node scripts/other-node.mjs 24 npm test
 *   node scripts/other-node.mjs 22 vitest run packages/server/test/api.e2e.test.ts
 *
 * Native addons (better-sqlite3 13, sharp) use Node-API and load under any supported version as `npm
 * install` put them. Nothing but the npm package is downloaded.
 *
 * The command runs with that Node first on PATH, ahead of the repository's own Node in node_modules/.bin
 * for every `npm run` inside it too; a name found in node_modules/.bin runs as that script.
 * Cache: $CATALOG_SYNC_NODE_CACHE, else $XDG_CACHE_HOME/catalog-sync, else ~/.cache/catalog-sync.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const [wanted, ...command] = process.argv.slice(2)
if (wanted === undefined || !/^\d+(\.\d+){0,2}$/.test(wanted) || command.length === 0) {
  process.stderr.write(
    "usage: node scripts/other-node.mjs <major, major.minor or exact version> <command> [arguments...]\n"
  )
  process.exit(2)
}

const log = (message) => process.stderr.write(`other-node: ${message}\n`)
const cacheRoot =
  process.env.CATALOG_SYNC_NODE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "catalog-sync")
const packageName = `node-${process.platform}-${process.arch}`
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

const newest = (versions) => [...versions].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1)

/** The newest release matching the wanted version on the registry; offline, the newest one in the cache. */
const resolveVersion = () => {
  try {
    const versions = JSON.parse(
      execFileSync(npm, ["view", `${packageName}@${wanted}`, "version", "--json"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"]
      })
    )
    return newest([versions].flat())
  } catch {
    const cached = existsSync(cacheRoot)
      ? readdirSync(cacheRoot).filter(
          (name) => name === `${packageName}-${wanted}` || name.startsWith(`${packageName}-${wanted}.`)
        )
      : []
    const version = newest(cached.map((name) => name.slice(packageName.length + 1)))
    if (version === undefined)
      throw new Error(`cannot resolve ${packageName}@${wanted} on the registry, and none is cached in ${cacheRoot}`)
    return version
  }
}

/** The Node distribution (bin/node, include/node) of `version`, from the cache or fetched into it. */
const nodeDistribution = (version) => {
  const home = join(cacheRoot, `${packageName}-${version}`)
  const dist = join(home, "package")
  if (existsSync(join(dist, "bin", "node"))) return dist
  log(`fetching ${packageName}@${version} into ${home}`)
  const partial = `${home}.partial-${process.pid}`
  mkdirSync(partial, { recursive: true })
  try {
    const [packed] = JSON.parse(
      execFileSync(npm, ["pack", `${packageName}@${version}`, "--json", "--pack-destination", partial], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"]
      })
    )
    execFileSync("tar", ["xzf", join(partial, packed.filename), "-C", partial], { stdio: "inherit" })
    rmSync(join(partial, packed.filename))
    rmSync(home, { recursive: true, force: true })
    // Renamed whole, so that a run cut off halfway never leaves a distribution that looks complete.
    renameSync(partial, home)
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
  return dist
}

const version = resolveVersion()
const dist = nodeDistribution(version)
const node = join(dist, "bin", "node")
const bin = join(dist, "bin")
const separator = process.platform === "win32" ? ";" : ":"
const env = { ...process.env, PATH: `${bin}${separator}${process.env.PATH ?? ""}` }
// `npm run` puts node_modules/.bin first on a script's PATH, and with it the repository's own Node
// (package.json's node-<os>-<cpu> optional dependency). A script shell that puts this Node back in front
// keeps every nested `npm run` on it; npm exports the setting to the scripts it runs, so it holds all the way down.
if (process.platform !== "win32") {
  const shell = join(dirname(dist), "script-shell")
  if (!existsSync(shell)) {
    const partial = `${shell}.partial-${process.pid}`
    writeFileSync(partial, `#!/bin/sh\nPATH="${bin}:$PATH"\nexport PATH\nexec /bin/sh "$@"\n`, { mode: 0o755 })
    renameSync(partial, shell)
  }
  env.npm_config_script_shell = shell
}
const [name, ...args] = command
const script = join(root, "node_modules", ".bin", name)
log(`running under Node ${version}: ${command.join(" ")}`)
const result = existsSync(script)
  ? spawnSync(node, [realpathSync(script), ...args], { cwd: root, env, stdio: "inherit" })
  : spawnSync(name, args, { cwd: root, env, stdio: "inherit" })
if (result.error !== undefined) throw result.error
process.exit(result.status ?? 1)
