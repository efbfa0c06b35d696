/**
 * The pages `npm run docs` renders, on a planted package: a service's page and an error's show their own
 * members and none that they inherit from Effect's types (`Context.Service`, `Data.TaggedError`), and the
 * index describes each module with the first paragraph of its doc comment.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { plantPackage } from "./PlantedPackage.js"

const run = promisify(execFile)
const root = fileURLToPath(new URL("..", import.meta.url))

/** A rendered page's text, without its markup. */
const textOf = (file: string) =>
  readFileSync(file, "utf8")
    .replace(/<svg[\s\S]*?<\/svg>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")

describe("the API reference's pages", () => {
  it(
    "show a service's and an error's own members, not what they inherit from Effect; the index describes each module",
    { timeout: 120_000 },
    async () => {
      const { base, src } = plantPackage(root, "api-pages-fixture")
      try {
        writeFileSync(
          join(src, "index.ts"),
          [
            "/**",
            " * Planted services and errors.",
            " *",
            " * A second paragraph, for the module's own page only.",
            " *",
            " * @packageDocumentation",
            " */",
            'import { Context, Data, Effect, Layer } from "effect"',
            "",
            "/** A planted service. */",
            'export class Greeter extends Context.Service<Greeter>()("planted/Greeter", {',
            "  make: Effect.succeed({ greet: (name: string) => Effect.succeed(`hello ${name}`) })",
            "}) {",
            "  /** The service's layer. */",
            "  static readonly Default = Layer.effect(this, this.make)",
            "}",
            "",
            "/** A planted error. */",
            'export class Refused extends Data.TaggedError("Refused")<{ readonly reason: string }> {',
            "  /** Its stable code. */",
            '  readonly code = "refused"',
            "}",
            ""
          ].join("\n")
        )
        // Two entries, as the real tree has many: TypeDoc documents a lone entry as the project itself.
        writeFileSync(
          join(src, "more.ts"),
          "/** More planted things. @packageDocumentation */\n\n/** Documented. */\nexport const more = 3\n"
        )
        await run(process.execPath, [join(root, "scripts", "api-reference.mjs"), "--base", base], {
          cwd: root,
          maxBuffer: 16 * 1024 * 1024
        })
        const pages = join(base, "docs", "api", "classes")
        const page = (name: string) =>
          textOf(
            join(
              pages,
              readdirSync(pages).find((file) => file.endsWith(`.${name}.html`))!
            )
          )

        const greeter = page("Greeter")
        expect(greeter).toContain("Default")
        expect(greeter).not.toContain("Constructors")
        const refused = page("Refused")
        expect(refused).toContain("code")
        expect(refused).toContain("reason")
        expect(refused).not.toContain("Constructors")
        // Effect's own members of every Effect value and error, which `Data.TaggedError` brings.
        expect(refused).not.toMatch(/\bpipe\b|~effect|Symbol\.iterator|asEffect/)

        const index = textOf(join(base, "docs", "api", "index.html"))
        expect(index).toMatch(/@catalog-sync\/planted Planted services and errors\./)
        expect(index).toMatch(/@catalog-sync\/planted\/more More planted things\./)
        expect(index).not.toContain("A second paragraph")
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    }
  )
})
