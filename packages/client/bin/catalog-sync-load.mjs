#!/usr/bin/env node
// Runs the built command (dist/bin). Inside the workspace it is built on first use, and again when the
// client's sources are newer than the build, so `npx catalog-sync-load` works right after `npm install`.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const built = join(root, "dist", "bin", "catalog-sync-load.js")
const sources = join(root, "src")

const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name)
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }, 0)

const stale = () => !existsSync(built) || (existsSync(sources) && newestSource(sources) > statSync(built).mtimeMs)

if (stale()) {
  let tsup
  try {
    tsup = createRequire(import.meta.url).resolve("tsup/package.json")
  } catch {
    tsup = undefined
  }
  if (tsup === undefined || !existsSync(sources)) {
    if (!existsSync(built)) {
      process.stderr.write(
        "catalog-sync-load is not built: run `npm run build -w @catalog-sync/client` in the workspace.\n"
      )
      process.exit(2)
    }
  } else {
    process.stderr.write("catalog-sync-load: building the command (once after each change of packages/client)...\n")
    const result = spawnSync(
      process.execPath,
      [join(dirname(tsup), "dist", "cli-default.js"), "--config", "tsup.bin.config.ts"],
      {
        cwd: root,
        stdio: ["ignore", "ignore", "inherit"]
      }
    )
    if (result.status !== 0 || !existsSync(built)) {
      process.stderr.write(
        "catalog-sync-load: the build failed; run `npm run build -w @catalog-sync/client` to see why.\n"
      )
      process.exit(2)
    }
  }
}

await import(pathToFileURL(built).href)
