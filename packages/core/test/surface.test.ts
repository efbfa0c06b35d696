/**
 * The core's surface is its entries: a module outside `internal/` (and the memory and testing folders of
 * their own entries) is exported by `index.ts`, so a new module is public by choice or lives under
 * `internal/`; and the package exports its entries alone, so no internal module is reachable by path.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const core = fileURLToPath(new URL("..", import.meta.url))
const src = join(core, "src")

const modules = (folder: string): ReadonlyArray<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? modules(join(folder, entry.name))
      : entry.name.endsWith(".ts")
        ? [relative(src, join(folder, entry.name))]
        : []
  )

const exportedBy = (entry: string) =>
  Array.from(readFileSync(join(src, entry), "utf8").matchAll(/from "\.\/([^"]+)\.js"/g), (m) => `${m[1]}.ts`)

describe("the core's surface", () => {
  it("index.ts exports every module outside internal/, and none inside", () => {
    const own = modules(src).filter((path) => path.includes("/") && !/^(internal|memory|testing)\//.test(path))
    const exported = exportedBy("index.ts")
    expect(exported.filter((path) => path.startsWith("internal/"))).toEqual([])
    expect(own.filter((path) => !exported.includes(path))).toEqual([])
  })

  it("the package exports its entries and nothing under internal/", () => {
    const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as {
      readonly exports: Record<string, Record<string, string>>
    }
    expect(Object.keys(manifest.exports).sort()).toEqual([
      ".",
      "./adapter-support",
      "./domain-kit",
      "./memory",
      "./testing"
    ])
    const targets = Object.values(manifest.exports).flatMap((conditions) => Object.values(conditions))
    expect(targets.filter((target) => target.includes("internal"))).toEqual([])
  })
})
