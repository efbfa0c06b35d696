/**
 * docs/configuration.md is the one settings table: every variable the server reads is documented there
 * with its default, it documents no variable the server does not read, and no other page repeats a row.
 * The variables come from the configuration module itself: the ones it declares with their defaults
 * (`variables`), and every name its settings look up when they are read (with the S3 storage chosen, so
 * that the adapter's `S3_*` are read too).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { EdgeConfig, ServerConfig, variables } from "../packages/server/src/ServerConfig.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const page = "docs/configuration.md"

/** The names the server's settings (`ServerConfig`, and `EdgeConfig` read by the HTTP edge) look up in `env`. */
const namesRead = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const names = new Set<string>()
    const source = ConfigProvider.fromEnvRecord(env)
    const recording = ConfigProvider.make((path) => {
      names.add(path.join("_"))
      return source.load(path)
    })
    const read = yield* Effect.result(
      Effect.all([ServerConfig, EdgeConfig]).pipe(Effect.provideService(ConfigProvider.ConfigProvider, recording))
    )
    expect(Result.isSuccess(read), `ServerConfig failed with ${JSON.stringify(env)}`).toBe(true)
    return names
  })

interface Row {
  readonly name: string
  readonly default: string | undefined
  readonly line: number
}

/** Rows of `| variable | default | meaning |` tables: a documented default "unset..." is undefined, "empty" is "". */
const settingRows = (markdown: string): ReadonlyArray<Row> => {
  const rows: Array<Row> = []
  let inTable = false
  markdown.split("\n").forEach((text, index) => {
    if (/^\|\s*variable\s*\|\s*default\s*\|/.test(text)) inTable = true
    else if (!text.startsWith("|")) inTable = false
    else if (inTable && !/^\|\s*-/.test(text)) {
      const [name, fallback] = text
        .split("|")
        .slice(1, 3)
        .map((cell) => cell.trim())
      const documented = fallback!.startsWith("unset")
        ? undefined
        : fallback === "empty"
          ? ""
          : /^`([^`]*)`/.exec(fallback!)?.[1]
      rows.push({ name: /^`([A-Z0-9_]+)`$/.exec(name!)?.[1] ?? name!, default: documented, line: index + 1 })
    }
  })
  return rows
}

describe("docs/configuration.md", () => {
  const rows = settingRows(readFileSync(join(root, page), "utf8"))
  const documented = new Map(rows.map((row) => [row.name, row]))

  it("has one row per variable, each a single variable name", () => {
    const names = rows.map((row) => row.name)
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([])
    expect(names.filter((name) => !/^[A-Z][A-Z0-9_]+$/.test(name))).toEqual([])
  })

  it.effect("documents every variable the server reads, and none it does not", () =>
    Effect.gen(function* () {
      const read = new Set([
        ...(yield* namesRead({})),
        ...(yield* namesRead({ MEDIA_STORAGE: "s3", S3_BUCKET: "catalog-media" }))
      ])
      // Sanity: the declared ones are looked up, and the S3 adapter's are there.
      expect([...variables.keys()].filter((name) => !read.has(name))).toEqual([])
      expect(read).toContain("S3_BUCKET")
      expect([...read].filter((name) => !documented.has(name)).sort(), "read but not documented").toEqual([])
      expect([...documented.keys()].filter((name) => !read.has(name)).sort(), "documented but not read").toEqual([])
    })
  )

  it("gives each declared variable the default the configuration module uses", () => {
    const wrong = [...variables].flatMap(([name, fallback]) => {
      const row = documented.get(name)
      if (row === undefined || row.default === fallback) return []
      return [
        `${page}:${row.line} ${name}: documented ${JSON.stringify(row.default)}, the module's ${JSON.stringify(fallback)}`
      ]
    })
    expect(wrong).toEqual([])
  })

  it("is the only page with a settings table: no other page lists a variable's row", () => {
    const pages = [
      "README.md",
      ...readdirSync(join(root, "docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => `docs/${name}`)
    ]
    const repeated = pages
      .filter((path) => path !== page)
      .flatMap((path) =>
        readFileSync(join(root, path), "utf8")
          .split("\n")
          .flatMap((line, index) => {
            const first = /^\|\s*`([A-Z][A-Z0-9_]+)`/.exec(line)?.[1]
            return first !== undefined && documented.has(first) ? [`${path}:${index + 1} ${first}`] : []
          })
      )
    expect(repeated).toEqual([])
  })
})
