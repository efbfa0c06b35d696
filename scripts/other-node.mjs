#!/usr/bin/env node
/**
 * Runs a command under another Node.js version, fetched with npm from the registry's
 * `node-<platform>-<arch>` package (the Node binary with its headers) into a cache folder. The version is a
 * major (its newest release), a major.minor (that line's newest patch) or an exact version:
 *
 *   node scripts/other-node.mjs 24 npm test
 *   node scripts/other-node.mjs 22 vitest run packages/server/test/api.e2e.test.ts
 *
 * The SQLite driver is the one that Node loads (drivers/better-sqlite3): on Node-API 10 and later (Node
 * 22.14 and later, 24) better-sqlite3 13, whose prebuilt Node-API binary loads under any such Node. Below
 * it better-sqlite3 12, which is not ABI-stable: it is rebuilt for that Node from the sources in
 * node_modules, with its headers, into the same cache folder, and loaded from there through
 * scripts/native-addons.cjs; node_modules stays as `npm install` built it. sharp and the other addons use
 * Node-API and load under any version. Nothing but the npm package is downloaded.
 *
 * The command runs with that Node first on PATH; a name found in node_modules/.bin runs as that script.
 * Cache: $CATALOG_SYNC_NODE_CACHE, else $XDG_CACHE_HOME/catalog-sync, else ~/.cache/catalog-sync.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
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

/** npm's own node-gyp, which npm uses to build addons on install. */
const nodeGyp = () => {
  const npmCli = process.env.npm_execpath ?? execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim()
  const candidate = join(dirname(realpathSync(npmCli)), "..", "node_modules", "node-gyp", "bin", "node-gyp.js")
  if (!existsSync(candidate)) throw new Error(`node-gyp not found next to npm (${candidate})`)
  return candidate
}

const sources = join(root, "node_modules", "better-sqlite3-12")
const { driverFor } = createRequire(import.meta.url)(join(root, "drivers", "better-sqlite3", "driver.cjs"))

/** better-sqlite3 12's addon built for the Node in `dist`, from the sources in node_modules. */
const betterSqlite3 = (dist, version) => {
  const { version: addonVersion } = JSON.parse(readFileSync(join(sources, "package.json"), "utf8"))
  const home = join(cacheRoot, `${packageName}-${version}`, `better-sqlite3-${addonVersion}`)
  const addon = join(home, "build", "Release", "better_sqlite3.node")
  if (existsSync(addon)) return addon
  log(`building better-sqlite3 ${addonVersion} for Node ${version} in ${home}`)
  rmSync(home, { recursive: true, force: true })
  mkdirSync(home, { recursive: true })
  for (const part of ["package.json", "binding.gyp", "src", "deps"])
    cpSync(join(sources, part), join(home, part), { recursive: true })
  const built = spawnSync(
    join(dist, "bin", "node"),
    [nodeGyp(), "rebuild", "--release", `--nodedir=${dist}`, "--jobs=max"],
    {
      cwd: home,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      // node-gyp lets npm's configuration in the environment override its flags, and `npm run` exports it:
      // a machine whose npmrc sets `nodedir` (to the default Node's headers) would build for that Node.
      env: { ...process.env, npm_config_nodedir: dist }
    }
  )
  if (built.status !== 0 || !existsSync(addon)) {
    process.stderr.write(`${built.stdout}${built.stderr}`)
    rmSync(home, { recursive: true, force: true })
    throw new Error(`building better-sqlite3 for Node ${version} failed (node-gyp exited with ${built.status})`)
  }
  return addon
}

const version = resolveVersion()
const dist = nodeDistribution(version)
const node = join(dist, "bin", "node")
const napi = execFileSync(node, ["-p", "process.versions.napi"], { encoding: "utf8" }).trim()
const env = {
  ...process.env,
  PATH: `${join(dist, "bin")}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}`
}
if (driverFor({ napi }) === "better-sqlite3-12") {
  env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --require=${join(root, "scripts", "native-addons.cjs")}`.trim()
  env.CATALOG_SYNC_BETTER_SQLITE3_ADDON = betterSqlite3(dist, version)
  env.CATALOG_SYNC_BETTER_SQLITE3_INSTALLED = join(sources, "build", "Release", "better_sqlite3.node")
}
const [name, ...args] = command
const script = join(root, "node_modules", ".bin", name)
log(`running under Node ${version}: ${command.join(" ")}`)
const result = existsSync(script)
  ? spawnSync(node, [realpathSync(script), ...args], { cwd: root, env, stdio: "inherit" })
  : spawnSync(name, args, { cwd: root, env, stdio: "inherit" })
if (result.error !== undefined) throw result.error
process.exit(result.status ?? 1)
