import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))

// The server's SQLite default runs on `node:sqlite`; better-sqlite3 stays the benchmark's raw-driver
// baseline and what the crash tests read the database file with. Loads it and frees prepared statements
// through the garbage collector, what aborted a V8-API build of the driver (12) on Node 24.19 and later;
// prints the version it loaded.
const probe = `
const Database = require("better-sqlite3")
const db = new Database(":memory:")
db.exec("CREATE TABLE t (x INTEGER)")
for (let i = 0; i < 2000; i++) db.prepare("SELECT " + i + " AS n, count(*) FROM t").get()
globalThis.gc()
setTimeout(() => {
  globalThis.gc()
  db.close()
  process.stdout.write(require("better-sqlite3/package.json").version)
}, 100)
`

describe("better-sqlite3 (the benchmark's baseline, the crash tests' reader)", () => {
  it(`loads on this Node (${process.versions.node}) and survives freed statements`, { timeout: 60_000 }, async () => {
    // A crash kills the child (SIGSEGV, SIGABRT), which rejects with the signal.
    const { stdout } = await run(process.execPath, ["--expose-gc", "-e", probe], { cwd: root })
    expect(stdout).toMatch(/^13\./)
  })
})
