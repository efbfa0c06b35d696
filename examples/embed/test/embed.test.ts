import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { rebuildStale, root, run, tsup } from "./PackedApp.js"

const example = join(root, "examples", "embed")

/** The packages the example imports, in dependency order; their builds are what an application loads. */
const packages = ["core", "adapter-sql", "adapter-sqlite", "adapter-http", "adapter-storage-fs", "adapter-image-sharp"]

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
      await rebuildStale(packages)
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
