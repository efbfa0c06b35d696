/**
 * The package graph's rules (.dependency-cruiser.cjs) hold for the code, and each rule catches what it
 * forbids (checked on a small tree of planted violations, so a rule that matches nothing fails here).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const depcruise = join(root, "node_modules", ".bin", "depcruise")

interface Violation {
  readonly rule: { readonly name: string }
  readonly from: string
  readonly to: string
}

const cruise = (cwd: string, paths: ReadonlyArray<string>): ReadonlyArray<Violation> => {
  let output: string
  try {
    output = execFileSync(
      depcruise,
      [...paths, "--config", join(cwd, ".dependency-cruiser.cjs"), "--output-type", "json"],
      // The JSON report lists every module: over the 1 MiB default once the graph grew.
      { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }
    )
  } catch (error) {
    // depcruise exits non-zero when it finds violations; its report is still on stdout.
    output = (error as { stdout: string }).stdout
  }
  return (JSON.parse(output) as { summary: { violations: ReadonlyArray<Violation> } }).summary.violations
}

describe("package graph", () => {
  it("the packages keep every dependency rule", () => {
    const violations = cruise(root, ["packages/*/src"])
    expect(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([])
  }, 120_000)

  it("each rule catches what it forbids", () => {
    planted((file, tree) => {
      file("packages/core/src/Fs.ts", `import { readFileSync } from "node:fs"\nexport const read = readFileSync\n`)
      file("packages/core/src/A.ts", `import { b } from "./B.js"\nexport const a = () => b\n`)
      file("packages/core/src/B.ts", `import { a } from "./A.js"\nexport const b = () => a\n`)
      file("packages/adapter-sql/src/Sql.ts", `export const sql = 1\n`)
      file(
        "packages/adapter-http/src/Reach.ts",
        `import { sql } from "../../adapter-sql/src/Sql.js"\nexport const reach = sql\n`
      )
      file(
        "packages/adapter-storage-fs/src/Other.ts",
        `import { reach } from "../../adapter-http/src/Reach.js"\nexport const other = reach\n`
      )
      file("packages/client/src/Client.ts", `import { a } from "../../core/src/A.js"\nexport const client = a\n`)
      file("packages/core/src/internal/Hidden.ts", `export const hidden = 1\n`)
      file(
        "packages/adapter-image-sharp/src/Deep.ts",
        `import { hidden } from "../../core/src/internal/Hidden.js"\nexport const deep = hidden\n`
      )
      const rules = new Set(cruise(tree, ["packages"]).map((v) => v.rule.name))
      expect([...rules].sort()).toEqual([
        "adapter-sql-engines-only",
        "adapters-do-not-import-adapters",
        "clients-use-the-contract-only",
        "core-imports-effect-only",
        "core-internals-stay-in-core",
        "no-circular",
        "no-relative-import-across-packages"
      ])
    })
  }, 120_000)

  it("a cycle closed by a type-only import is a cycle", () => {
    planted((file, tree) => {
      file("packages/core/src/Kinds.ts", `import { handler } from "./Handler.js"\nexport const kinds = [handler]\n`)
      file(
        "packages/core/src/Handler.ts",
        `import type { kinds } from "./Kinds.js"\nexport const handler = (k: typeof kinds) => k.length\n`
      )
      expect(cruise(tree, ["packages"]).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([
        "no-circular: packages/core/src/Handler.ts -> packages/core/src/Kinds.ts"
      ])
    })
  }, 120_000)
})

/** Runs `plant` on a fresh tree holding the project's rules and a minimal tsconfig, then removes it. */
const planted = (plant: (file: (path: string, text: string) => void, tree: string) => void) => {
  const tree = mkdtempSync(join(tmpdir(), "catalog-sync-depcruise-"))
  try {
    cpSync(join(root, ".dependency-cruiser.cjs"), join(tree, ".dependency-cruiser.cjs"))
    writeFileSync(
      join(tree, "tsconfig.base.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowJs: true } })
    )
    plant((path, text) => {
      mkdirSync(dirname(join(tree, path)), { recursive: true })
      writeFileSync(join(tree, path), text)
    }, tree)
  } finally {
    rmSync(tree, { recursive: true, force: true })
  }
}
