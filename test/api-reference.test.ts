/**
 * The API reference (`npm run docs`, scripts/api-reference.mjs) covers every entry the published packages
 * export, with a doc comment on each public export and examples that typecheck; the check names what it
 * misses, on a planted package.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { plantPackage } from "./PlantedPackage.js"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))
const script = join(root, "scripts", "api-reference.mjs")

/** The check's exit status and what it printed. */
const check = (...args: ReadonlyArray<string>) =>
  run(process.execPath, [script, "--check", ...args], { cwd: root, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ status: 0, output: `${stdout}${stderr}` }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      status: error.code ?? -1,
      output: `${error.stdout ?? ""}${error.stderr ?? ""}`
    })
  )

describe("the API reference", () => {
  it(
    "documents every public export of the published packages, and their examples typecheck",
    { timeout: 180_000 },
    async () => {
      const { status, output } = await check()
      expect(output).toMatch(/^api reference: \d+ public exports documented/m)
      expect(status).toBe(0)
    }
  )

  it("names an export without a doc comment and an example that does not typecheck", { timeout: 120_000 }, async () => {
    const { base, src } = plantPackage(root, "api-reference-fixture")
    try {
      writeFileSync(
        join(src, "index.ts"),
        [
          "/**",
          " * A planted package.",
          " *",
          " * @packageDocumentation",
          " */",
          "",
          "/** Documented, with an example that does not typecheck.",
          " *",
          " * @example",
          " * ```ts",
          ' * const count: number = "three"',
          " * ```",
          " */",
          "export const documented = 1",
          "",
          "export const undocumented = 2",
          ""
        ].join("\n")
      )
      // Two entries, as the real tree has many: TypeDoc documents a lone entry as the project itself.
      writeFileSync(
        join(src, "more.ts"),
        "/** More. @packageDocumentation */\n\n/** Documented. */\nexport const more = 3\n"
      )
      const { status, output } = await check("--base", base)
      expect(status).toBe(1)
      expect(output).toContain("no doc comment: @catalog-sync/planted.undocumented (packages/planted/src/index.ts:16)")
      expect(output).not.toContain("no doc comment: @catalog-sync/planted.documented")
      expect(output).not.toContain("no doc comment: @catalog-sync/planted/more")
      expect(output).toContain(
        "example of @catalog-sync/planted.documented, line 1: Type 'string' is not assignable to type 'number'."
      )
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
