import type BetterSqlite3 from "better-sqlite3"
import { createRequire } from "node:module"

/**
 * Which better-sqlite3 the Node.js with these versions loads, by the rule of the workspace's
 * `drivers/better-sqlite3`: 13 needs Node-API 10 (Node 22.14 and later, 24) and dies at load below it
 * (Node 20); 12, compiled with Node 24.19's or later headers, aborts the process when a garbage-collected
 * prepared statement is freed. The package depends on both (npm aliases), so that an application
 * installing it alone gets the same choice as the workspace.
 */
export const driverFor = (versions: Readonly<Record<string, string | undefined>>) =>
  Number(versions.napi) >= 10 ? ("better-sqlite3-13" as const) : ("better-sqlite3-12" as const)

/** better-sqlite3 for the Node.js that runs. */
export const Database: typeof BetterSqlite3 = createRequire(import.meta.url)(driverFor(process.versions))
