import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))
const guard = join(root, "scripts", "prepack-guard.mjs")

/** Runs the guard in `folder`: its exit code and what it wrote on stderr. */
const check = (folder: string) =>
  run(process.execPath, [guard], { cwd: folder }).then(
    () => ({ code: 0, stderr: "" }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr })
  )

describe("npm pack of a published package", () => {
  it("runs the build guard first, in every package", () => {
    for (const folder of readdirSync(join(root, "packages"))) {
      const manifest = JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8")) as {
        readonly scripts?: Record<string, string>
      }
      expect(manifest.scripts?.prepack, folder).toBe("node ../../scripts/prepack-guard.mjs")
    }
  })

  it("stops when the JavaScript its exports name is missing or older than its sources, else goes on", async () => {
    const folder = mkdtempSync(join(tmpdir(), "catalog-sync-prepack-"))
    try {
      writeFileSync(
        join(folder, "package.json"),
        JSON.stringify({
          name: "@catalog-sync/planted",
          exports: { ".": { "@catalog-sync/source": "./src/index.ts", default: "./dist/index.js" } }
        })
      )
      mkdirSync(join(folder, "src"))
      writeFileSync(join(folder, "src", "index.ts"), "export const a = 1\n")
      const missing = await check(folder)
      expect(missing.code).toBe(1)
      expect(missing.stderr).toContain("./dist/index.js is missing")

      mkdirSync(join(folder, "dist"))
      writeFileSync(join(folder, "dist", "index.js"), "export const a = 1\n")
      const past = new Date(Date.now() - 60_000)
      utimesSync(join(folder, "dist", "index.js"), past, past)
      const behind = await check(folder)
      expect(behind.code).toBe(1)
      expect(behind.stderr).toContain("./dist/index.js older than src")

      const now = new Date()
      utimesSync(join(folder, "dist", "index.js"), now, now)
      expect(await check(folder)).toEqual({ code: 0, stderr: "" })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
