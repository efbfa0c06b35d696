import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))

// Loads better-sqlite3 as the server does and frees prepared statements through the garbage collector, what
// aborted a V8-API build of the driver on Node 24.19 and later; prints the version it loaded.
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

describe("the SQLite driver (better-sqlite3)", () => {
  it(`loads on this Node (${process.versions.node}) and survives freed statements`, { timeout: 60_000 }, async () => {
    // A crash kills the child (SIGSEGV, SIGABRT), which rejects with the signal.
    const { stdout } = await run(process.execPath, ["--expose-gc", "-e", probe], { cwd: root })
    expect(stdout).toMatch(/^13\./)
  })
})
