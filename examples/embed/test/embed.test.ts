import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../..", import.meta.url))
const example = join(root, "examples", "embed")
const tsup = join(root, "node_modules", ".bin", "tsup")

/** The packages the example imports, in dependency order; their builds are what an application loads. */
const packages = ["core", "adapter-sql", "adapter-sqlite", "adapter-http", "adapter-storage-fs", "adapter-image-sharp"]

/** The newest (or oldest) modification time of the files under `dir`. */
const mtime = (dir: string, pick: (a: number, b: number) => number): number =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)
    .reduce((a, b) => pick(a, b))

/** Whether a package's build is missing or older than its sources. */
const stale = (name: string) => {
  const dist = join(root, "packages", name, "dist")
  return !existsSync(dist) || mtime(join(root, "packages", name, "src"), Math.max) > mtime(dist, Math.min)
}

/** The embedding guide's first program: the first JavaScript block of its "A first program" section. */
const guideSnippet = () => {
  const guide = readFileSync(join(root, "docs", "embedding.md"), "utf8")
  const section = guide.slice(guide.indexOf("## A first program"))
  const block = /```js\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error('docs/embedding.md has no JavaScript block under "A first program"')
  return block[1]!
}

// Processes, outside vitest's module graph: the example loads the packages' builds through their exports
// maps, as an application that installed them does, so a test-runner import in an entry would fail here.
describe("examples/embed", () => {
  it("the embedding guide's first program is the example's quickstart, word for word", () => {
    expect(guideSnippet()).toBe(readFileSync(join(example, "src", "quickstart.ts"), "utf8"))
  })

  it(
    "runs in memory, on SQLite and inside its own HTTP router, from the packages' builds",
    { timeout: 180_000 },
    async () => {
      // npm install built them; after a change of their sources, rebuild them, without emptying dist first:
      // other test files load these builds at the same time.
      for (const name of packages.filter(stale))
        await run(tsup, ["--silent", "--no-clean"], { cwd: join(root, "packages", name) })
      await run(tsup, ["--silent"], { cwd: example })
      const { stdout } = await run(process.execPath, [join(example, "dist", "main.js")], { cwd: example })
      const lines = stdout.split("\n").filter((line) => !line.startsWith("timestamp="))
      expect(lines).toEqual(
        expect.arrayContaining([
          "in memory: created, created, updated; stale write: revision_conflict",
          "in memory: sofa-1: Sofa XL (revision 2)",
          "sqlite: created, created, updated; stale write: revision_conflict",
          "sqlite, reopened: sofa-1: Sofa XL (revision 2)",
          "http: GET / -> 200 the host application's home page",
          "http: the key acts for connection ERP",
          "http: GET /nothing-here -> 404 ",
          "done"
        ])
      )
      expect(lines.find((line) => line.startsWith("http: POST /api/v1/categories/upsert"))).toMatch(
        /-> 200 .*"outcome":"created"/
      )
      expect(lines.find((line) => line.startsWith("http: GET /api/v1/categories?external_id=sofas"))).toMatch(
        /-> 200 .*"external_id":"sofas"/
      )
      expect(lines.find((line) => line.startsWith("http: GET /api/v1/nothing-here"))).toMatch(
        /-> 404 .*"code":"route_not_found"/
      )
      // The probes answer at the host's root, through the API (its envelope: a request id).
      expect(lines.find((line) => line.startsWith("http: GET /health"))).toMatch(/-> 200 .*"status":"ok"/)
      expect(lines.find((line) => line.startsWith("http: GET /ready"))).toMatch(/-> 200 .*"status":"ok"/)

      // The guide's program, pasted into a file of a fresh clone (after npm install) and run with node.
      const scratch = join(root, "build", `guide-embedding-${process.pid}`)
      mkdirSync(scratch, { recursive: true })
      try {
        writeFileSync(join(scratch, "embed.mjs"), guideSnippet())
        const pasted = await run(process.execPath, [join(scratch, "embed.mjs")], { cwd: root })
        expect(pasted.stdout).toBe("created category sofas (revision 1)\n")
      } finally {
        rmSync(scratch, { recursive: true, force: true })
      }
    }
  )
})
