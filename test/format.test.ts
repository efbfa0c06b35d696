import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))
const prettier = fileURLToPath(new URL("../node_modules/prettier/bin/prettier.cjs", import.meta.url))

describe("source formatting", () => {
  // One layout for every source file (.prettierrc.json: 120 columns), so diffs show changes, not taste;
  // `npm run format` applies it.
  it("every source file is as the formatter writes it", { timeout: 120_000 }, async () => {
    const result = await run(process.execPath, [prettier, "--list-different", "**/*.{ts,mts,cts,js,mjs,cjs}"], {
      cwd: root
    }).then(
      ({ stdout }) => ({ different: stdout }),
      (error: { stdout?: string; stderr?: string }) => ({ different: `${error.stdout ?? ""}${error.stderr ?? ""}` })
    )
    expect(
      result.different
        .trim()
        .split("\n")
        .filter((line) => line !== "")
    ).toEqual([])
  })

  it("the check names a file laid out otherwise", { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), "catalog-sync-format-"))
    try {
      const planted = join(folder, "planted.ts")
      writeFileSync(planted, "const   answer =   {a:1,\n b:2};\n")
      const config = join(root, ".prettierrc.json")
      const outcome = await run(process.execPath, [prettier, "--config", config, "--list-different", "planted.ts"], {
        cwd: folder
      }).then(
        () => ({ failed: false, stdout: "" }),
        (error: { stdout?: string }) => ({ failed: true, stdout: error.stdout ?? "" })
      )
      expect(outcome).toEqual({ failed: true, stdout: "planted.ts\n" })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
