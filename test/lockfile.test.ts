import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))

/** The workspace folders of package.json's `workspaces` globs (`packages/*`, `examples/*`). */
const workspaces = () =>
  ["packages", "examples"].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? [join(parent, entry.name)] : []
    )
  )

describe("package-lock.json", () => {
  // CI systems and container builds install with `npm ci`, which refuses a lock file that lacks any
  // package that package.json's dependencies name, including other platforms' optional native builds.
  it("is complete: npm ci accepts it on a fresh clone", { timeout: 120_000 }, async () => {
    const clone = mkdtempSync(join(tmpdir(), "catalog-sync-npm-ci-"))
    try {
      for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(root, file), join(clone, file))
      for (const workspace of workspaces()) {
        mkdirSync(join(clone, workspace), { recursive: true })
        copyFileSync(join(root, workspace, "package.json"), join(clone, workspace, "package.json"))
      }
      const { stdout } = await run("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
        cwd: clone,
        maxBuffer: 16 * 1024 * 1024
      })
      expect(stdout).toMatch(/added \d+ packages/)
    } finally {
      rmSync(clone, { recursive: true, force: true })
    }
  })
})
