/**
 * `npm run sync -w @catalog-sync/example-folder-sync -- <folder>`: syncs the folder with the server at
 * CATALOG_SYNC_URL (default http://localhost:8080) using the key in CATALOG_SYNC_KEY, every
 * SYNC_INTERVAL_SECONDS (default 10) until interrupted; `--once` runs a single cycle.
 */
import { resolve } from "node:path"
import { FolderSync } from "./FolderSync.js"

const args = process.argv.slice(2)
// npm runs scripts in the package folder; INIT_CWD is where the command was typed.
const dir = resolve(process.env.INIT_CWD ?? process.cwd(), args.find((arg) => !arg.startsWith("--")) ?? "catalog")
const apiKey = process.env.CATALOG_SYNC_KEY
if (apiKey === undefined) {
  process.stderr.write("set CATALOG_SYNC_KEY to a key with catalog:read,catalog:write,prices:read,prices:write\n")
  process.exit(1)
}
const sync = new FolderSync({ dir, apiKey, baseUrl: process.env.CATALOG_SYNC_URL ?? "http://localhost:8080" })
const interval = Number(process.env.SYNC_INTERVAL_SECONDS ?? 10) * 1000
let stopping = false
process.on("SIGINT", () => (stopping = true))
process.on("SIGTERM", () => (stopping = true))
do {
  const report = await sync.syncOnce()
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...report })}\n`)
  if (args.includes("--once")) break
  await new Promise((resolve) => setTimeout(resolve, interval))
} while (!stopping)
await sync.close()
