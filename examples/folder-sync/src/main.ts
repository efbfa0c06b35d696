/**
 * `npm run sync -w @catalog-sync/example-folder-sync -- <folder>`: syncs the folder with the server at
 * CATALOG_SYNC_URL (default http://localhost:8080) using the key in CATALOG_SYNC_KEY, every
 * SYNC_INTERVAL_SECONDS (default 10) until interrupted; `--once` runs a single cycle.
 *
 * Each cycle prints its report as one JSON line on stdout, and one line on stderr per file it could not
 * push (the file, each failing field, the API's message). The exit code is 1 when the last cycle left a
 * file unpushed or could not run at all (server unreachable, key refused), else 0.
 */
import { resolve } from "node:path"
import { type FileFailure, FolderSync } from "./FolderSync.js"

const args = process.argv.slice(2)
// npm runs scripts in the package folder; INIT_CWD is where the command was typed.
const dir = resolve(process.env.INIT_CWD ?? process.cwd(), args.find((arg) => !arg.startsWith("--")) ?? "catalog")
const apiKey = process.env.CATALOG_SYNC_KEY
if (apiKey === undefined) {
  process.stderr.write("set CATALOG_SYNC_KEY to a key with catalog:read,catalog:write,prices:read,prices:write\n")
  process.exit(1)
}
const baseUrl = process.env.CATALOG_SYNC_URL ?? "http://localhost:8080"
const sync = new FolderSync({ dir, apiKey, baseUrl })
const interval = Number(process.env.SYNC_INTERVAL_SECONDS ?? 10) * 1000

const describeFailure = (failure: FileFailure) => {
  const request = failure.request_id === undefined ? "" : `, request_id ${failure.request_id}`
  const head = `folder-sync: ${failure.file}: ${failure.message} (${failure.code}${request})`
  return [head, ...failure.fields.map((field) => `folder-sync: ${failure.file}: ${field.path}: ${field.message}`)].join(
    "\n"
  )
}

/** One line for a failure that stopped the cycle, without a stack trace. */
const describeCycleError = (error: unknown) => {
  const tagged = error as { _tag?: string; code?: string; message?: string; request_id?: string }
  if (tagged._tag === "NetworkError")
    return `cannot reach the server at ${baseUrl} (CATALOG_SYNC_URL): ${tagged.message}`
  if (tagged._tag === "CatalogSyncError" || tagged._tag === "RevisionConflict") {
    return `the server at ${baseUrl} refused the cycle: ${tagged.message} (${tagged.code}, request_id ${tagged.request_id})`
  }
  return `the cycle failed: ${tagged.message ?? String(error)}`
}

let stopping = false
process.on("SIGINT", () => (stopping = true))
process.on("SIGTERM", () => (stopping = true))
do {
  try {
    const report = await sync.syncOnce()
    process.stdout.write(
      `${JSON.stringify({ at: new Date().toISOString(), ...report, failed: report.failed.length })}\n`
    )
    for (const failure of report.failed) process.stderr.write(`${describeFailure(failure)}\n`)
    process.exitCode = report.failed.length > 0 ? 1 : 0
  } catch (error) {
    process.stderr.write(`folder-sync: ${describeCycleError(error)}\n`)
    process.exitCode = 1
  }
  if (args.includes("--once")) break
  await new Promise((resolve) => setTimeout(resolve, interval))
} while (!stopping)
await sync.close()
