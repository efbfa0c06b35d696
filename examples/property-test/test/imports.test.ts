/**
 * The example is a user's package: it depends on the core's published entries and nothing of the
 * project's internals, so what it does works for anyone who installs `@catalog-sync/core`.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const example = fileURLToPath(new URL("..", import.meta.url))

const published = ["@catalog-sync/core", "@catalog-sync/core/memory", "@catalog-sync/core/testing"]
/** What any package may import besides: Effect, the test runner, Node's built-ins (in tests), its own files. */
const allowed = (specifier: string, file: string) =>
  published.includes(specifier) ||
  specifier === "effect" ||
  specifier.startsWith("./") ||
  specifier.startsWith("../") ||
  (file.startsWith("test/") &&
    (specifier === "@effect/vitest" || specifier === "vitest" || specifier.startsWith("node:")))

const sources = ["src", "test"].flatMap((folder) =>
  readdirSync(join(example, folder))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `${folder}/${name}`)
)

const specifiers = (text: string) =>
  Array.from(
    text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g),
    (m) => m[1] ?? m[2]!
  )

describe("examples/property-test", () => {
  it("imports only the core's published entries, effect and (in tests) the test runner and Node", () => {
    const foreign = sources.flatMap((file) =>
      specifiers(readFileSync(join(example, file), "utf8"))
        .filter((specifier) => !allowed(specifier, file))
        .map((specifier) => `${file}: ${specifier}`)
    )
    expect(sources.length).toBeGreaterThan(3)
    expect(foreign).toEqual([])
  })

  it("depends on @catalog-sync/core and effect only", () => {
    const manifest = JSON.parse(readFileSync(join(example, "package.json"), "utf8")) as {
      readonly dependencies: Record<string, string>
    }
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@catalog-sync/core", "effect"])
  })
})
