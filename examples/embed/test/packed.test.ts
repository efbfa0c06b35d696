import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { packedApp, root, run, sameLine, tsup } from "./PackedApp.js"

const example = join(root, "examples", "embed")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

/** What the example imports, with what those import in turn: every package an application installs. */
const packages = [
  "core",
  "contract",
  "adapter-sql",
  "adapter-sqlite",
  "adapter-http",
  "adapter-storage-fs",
  "adapter-image-sharp"
]

/** The embedding guide's section for an application outside the monorepo: its install line, program and output. */
const outsideRecipe = () => {
  const guide = readFileSync(join(root, "docs", "embedding.md"), "utf8")
  const start = guide.indexOf("## Outside the monorepo")
  if (start < 0) throw new Error('docs/embedding.md has no section "Outside the monorepo"')
  const section = guide.slice(start, guide.indexOf("\n## ", start + 1))
  const block = (language: string) => {
    const found = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(section)
    if (found === null) throw new Error(`"Outside the monorepo" has no ${language} block`)
    return found[1]!
  }
  const install = block("sh").replaceAll("\\\n", " ")
  return {
    installed: [...(/npm install ([^\n]*)/.exec(install)?.[1] ?? "").matchAll(/\S+/g)].map(([name]) => name),
    program: block("js"),
    prints: block("text")
  }
}

/** The packages a program imports: its bare specifiers, without the subpath (`effect/http` is `effect`). */
const importedPackages = (program: string) =>
  [...program.matchAll(/from "([^"]+)"/g)]
    .map(([, specifier]) => specifier!)
    .filter((specifier) => !specifier.startsWith("node:"))
    .map((specifier) =>
      specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/")
    )

// An application outside the monorepo: its own package.json with its own effect, our packages from the
// tarballs `npm pack` makes (what the registry would serve), installed by npm as a user's install would be.
describe("examples/embed from packed packages", () => {
  it(
    "installs next to the application's own effect 4 (one copy); the example and the guide's program outside the monorepo run as shown",
    { timeout: 300_000 },
    async () => {
      const packed = await packedApp({
        prefix: "catalog-sync-packed-",
        name: "furniture-back-office",
        packages,
        dependencies: sameLine("effect", "@effect/platform-node")
      })
      const app = packed.dir
      try {
        expect(packed.tarballs).toHaveLength(packages.length)
        await packed.install()
        const { stdout: copies } = await run(npm, ["ls", "effect", "--all", "--parseable"], { cwd: app })
        expect(copies.trim().split("\n")).toEqual([join(app, "node_modules", "effect")])
        const effect = JSON.parse(readFileSync(join(app, "node_modules", "effect", "package.json"), "utf8")) as {
          version: string
        }
        expect(effect.version).toMatch(/^4\./)

        // The example's program, compiled with its imports left to the application's node_modules.
        await run(tsup, ["--silent", "--out-dir", join(app, "dist")], { cwd: example })
        const { stdout } = await run(process.execPath, [join(app, "dist", "main.js")], { cwd: app })
        const lines = stdout.split("\n").filter((line) => !line.startsWith("timestamp="))
        expect(lines).toEqual(
          expect.arrayContaining([
            "in memory: created, created, updated; stale write: revision_conflict",
            "sqlite: created, created, updated; stale write: revision_conflict",
            "sqlite, reopened: sofa-1: Sofa XL (revision 2)",
            "http: GET / -> 200 the host application's home page",
            "http: the key acts for connection ERP",
            "done"
          ])
        )
        expect(lines.find((line) => line.startsWith("http: POST /api/v1/categories/upsert"))).toMatch(
          /-> 200 .*"outcome":"created"/
        )

        // The guide's program for an application outside the monorepo, as shown: it installs what it imports,
        // runs in at most 60 lines, and prints what the guide says.
        const recipe = outsideRecipe()
        expect(recipe.program.split("\n").length - 1).toBeLessThanOrEqual(60)
        expect([...new Set(importedPackages(recipe.program))].sort()).toEqual([...recipe.installed].sort())
        for (const name of recipe.installed)
          expect(existsSync(join(app, "node_modules", name, "package.json")), name).toBe(true)
        writeFileSync(join(app, "main.mjs"), recipe.program)
        const outside = await run(process.execPath, [join(app, "main.mjs")], { cwd: app })
        expect(outside.stdout).toBe(recipe.prints)
      } finally {
        packed.remove()
      }
    }
  )
})
