import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The most lines a source file may have: past it, a module does several things and wants splitting. */
const maxLines = 500

/** The folders of source: each package's and example's `src`, the benchmark's and the scripts. */
const sourceFolders = (base: string) => [
  ...["packages", "examples"].flatMap((parent) =>
    existsSync(join(base, parent))
      ? readdirSync(join(base, parent), { withFileTypes: true }).flatMap((entry) =>
          entry.isDirectory() ? [join(parent, entry.name, "src")] : []
        )
      : []
  ),
  "bench/src",
  "scripts"
]

const typeScriptFiles = (folder: string): Array<string> =>
  existsSync(folder)
    ? readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
        const path = join(folder, entry.name)
        if (entry.isDirectory()) return entry.name === "node_modules" ? [] : typeScriptFiles(path)
        return /\.[cm]?ts$/.test(entry.name) ? [path] : []
      })
    : []

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

/** Every TypeScript source file under `base` longer than `maxLines`, as "path: N lines". */
const oversized = (base: string) =>
  sourceFolders(base)
    .flatMap((folder) => typeScriptFiles(join(base, folder)))
    .flatMap((file) => {
      const lines = lineCount(readFileSync(file, "utf8"))
      return lines > maxLines ? [`${relative(base, file)}: ${lines} lines`] : []
    })
    .sort()

describe("source file sizes", () => {
  it(`no TypeScript source file has more than ${maxLines} lines`, () => {
    expect(oversized(root)).toEqual([])
  })

  it("the check names each file over the limit, wherever it sits under a source folder", () => {
    const base = mkdtempSync(join(tmpdir(), "catalog-sync-file-sizes-"))
    try {
      const plant = (path: string, lines: number) => {
        mkdirSync(dirname(join(base, path)), { recursive: true })
        writeFileSync(join(base, path), "const line = 1\n".repeat(lines))
      }
      plant("packages/core/src/Deep/Nested/Big.ts", maxLines + 1)
      plant("packages/core/src/AtTheLimit.ts", maxLines)
      plant("examples/embed/src/Big.mts", maxLines + 20)
      plant("bench/src/big.ts", maxLines + 2)
      plant("scripts/big.ts", maxLines + 3)
      // Outside the source folders, or not TypeScript: not counted.
      plant("packages/core/test/Big.test.ts", maxLines + 1)
      plant("scripts/big.mjs", maxLines + 1)
      expect(oversized(base)).toEqual([
        "bench/src/big.ts: 502 lines",
        "examples/embed/src/Big.mts: 520 lines",
        "packages/core/src/Deep/Nested/Big.ts: 501 lines",
        "scripts/big.ts: 503 lines"
      ])
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
