import { describe, expect, it } from "@effect/vitest"
import { driverFor } from "better-sqlite3/driver"
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import * as AdapterDriver from "../packages/adapter-sqlite/src/internal/driver.js"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))

/** The Nodes the embedded SQLite default runs on, with the Node-API version each offers (measured). */
const matrix = [
  { node: "20.20.2", napi: "9" },
  { node: "22.23.3", napi: "10" },
  { node: "24.21.0", napi: "10" }
]

/** Where each driver crashes the process (docs/node-support.md). */
const crashes: Record<ReturnType<typeof driverFor>, (node: { node: string; napi: string }) => boolean> = {
  // Compiled with Node 24.19's or later headers: aborts when a garbage-collected statement is freed.
  "better-sqlite3-12": ({ node }) => {
    const [major = 0, minor = 0] = node.split(".").map(Number)
    return major > 24 || (major === 24 && minor >= 19)
  },
  // A Node-API 10 addon: a segmentation fault at load below it.
  "better-sqlite3-13": ({ napi }) => Number(napi) < 10
}

// Loads `better-sqlite3` as the server does, frees prepared statements through the garbage collector (what
// aborts better-sqlite3 12 on Node 24.19 and later) and prints the driver it got.
const probe = `
const Database = require("better-sqlite3")
const driver = require("better-sqlite3/driver").driverFor(process.versions)
if (Database !== require(driver)) throw new Error("better-sqlite3 is not " + driver)
const db = new Database(":memory:")
db.exec("CREATE TABLE t (x INTEGER)")
for (let i = 0; i < 2000; i++) db.prepare("SELECT " + i + " AS n, count(*) FROM t").get()
globalThis.gc()
setTimeout(() => {
  globalThis.gc()
  db.close()
  process.stdout.write(driver + " " + require(driver + "/package.json").version)
}, 100)
`

describe("the SQLite driver (better-sqlite3)", () => {
  it("is, on every Node of the supported matrix, one that does not crash there", () => {
    const crashing = matrix.filter((node) => crashes[driverFor(node)](node)).map(({ node }) => node)
    expect(crashing).toEqual([])
  })

  it(`loads on this Node (${process.versions.node}) and survives freed statements`, { timeout: 60_000 }, async () => {
    const expected = driverFor(process.versions)
    // A crash kills the child (SIGSEGV, SIGABRT), which rejects with the signal.
    const { stdout } = await run(process.execPath, ["--expose-gc", "-e", probe], { cwd: root })
    expect(stdout).toMatch(new RegExp(`^${expected} ${expected === "better-sqlite3-13" ? 13 : 12}\\.`))
  })

  it("follows the Node-API version: 13 from Node-API 10 on", () => {
    expect(["8", "9", "10", "11"].map((napi) => driverFor({ napi }))).toEqual([
      "better-sqlite3-12",
      "better-sqlite3-12",
      "better-sqlite3-13",
      "better-sqlite3-13"
    ])
  })

  // @catalog-sync/adapter-sqlite depends on both releases and picks one itself, for applications that
  // install it without this workspace's override.
  it("is the one @catalog-sync/adapter-sqlite picks for itself", () => {
    const napis = ["8", "9", "10", "11"]
    expect(napis.map((napi) => AdapterDriver.driverFor({ napi }))).toEqual(napis.map((napi) => driverFor({ napi })))
    expect(AdapterDriver.Database).toBe(createRequire(import.meta.url)("better-sqlite3"))
  })
})
