import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { parse } from "../src/cli/Commands.js"

// biome-ignore lint: ANSI escapes are what is being removed
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "")

/** What `catalog-sync <words> --help` prints on stdout. */
const helpOf = (words: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const printed: Array<string> = []
    const action = yield* Console.consoleWith((console) =>
      Effect.withConsole(parse([...words, "--help"]), {
        ...console,
        log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void printed.push(args.join(" ")))
      })
    )
    expect(action._tag).toBe("Printed")
    return plain(printed.join("\n"))
  }).pipe(Effect.provide(NodeContext.layer))

/** The entries of a section (OPTIONS, ARGUMENTS): each name line with the paragraphs under it. */
const entries = (help: string, section: string) => {
  const lines = help.split("\n")
  const start = lines.indexOf(section)
  if (start < 0) return []
  const out: Array<{ name: string; paragraphs: Array<string> }> = []
  for (const line of lines.slice(start + 1)) {
    if (/^[A-Z]+$/.test(line)) break
    if (line === "") continue
    if (line.startsWith("  ")) out.at(-1)!.paragraphs.push(line.trim())
    else out.push({ name: line, paragraphs: [] })
  }
  return out
}

/** What the library writes under an option by itself: its value type and whether it is optional. */
const generic = [/^One of the following: /, /^This setting is optional\.$/, /^A true or false value\.$/]

/** Every command's words, as the root help lists them (`- company create --name text ...`). */
const paths: Array<ReadonlyArray<string>> = [
  [],
  ...Effect.runSync(helpOf([]))
    .split("\n")
    .filter((line) => line.startsWith("  - "))
    .map((line) => {
      const words = line.slice(4).split(" ")
      const end = words.findIndex((word) => /^[-[<]/.test(word))
      return end < 0 ? words : words.slice(0, end)
    })
]

describe("catalog-sync --help", () => {
  it("walks every command", () => {
    expect(paths.length).toBeGreaterThan(30)
    expect(paths).toContainEqual(["key", "create"])
    expect(paths).toContainEqual(["jobs", "resume"])
  })

  it.effect.each(paths.map((words) => [words.join(" ") || "(root)", words] as const))(
    "%s: no placeholder, the full command in the usage, a description for every option and argument",
    ([, words]) =>
      Effect.gen(function* () {
        const help = yield* helpOf(words)
        expect(help).not.toContain("user-defined piece of text")
        const usage = help.split("\n").find((line) => line.startsWith("$ "))
        expect(
          usage === `$ ${["catalog-sync", ...words].join(" ")}` ||
            usage?.startsWith(`$ ${["catalog-sync", ...words].join(" ")} `)
        ).toBe(true)
        for (const entry of [...entries(help, "OPTIONS"), ...entries(help, "ARGUMENTS")]) {
          const own = entry.paragraphs.filter((p) => !generic.some((g) => g.test(p)))
          expect(own, `${words.join(" ")}: ${entry.name}`).not.toEqual([])
        }
        // Lines read as lines: no column padded across the screen.
        expect(help.split("\n").filter((line) => /\S {4,}\S/.test(line))).toEqual([])
      })
  )

  it.effect("shows an option's default and an example where it helps", () =>
    Effect.gen(function* () {
      const keyCreate = yield* helpOf(["key", "create"])
      expect(keyCreate).toContain("Example: --days 90")
      expect(keyCreate).toContain("Example: --scopes catalog:read,catalog:write")
      const jobsList = yield* helpOf(["jobs", "list"])
      expect(jobsList).toContain("Default: 100")
      const companyCreate = yield* helpOf(["company", "create"])
      expect(companyCreate).toContain("Default: unconfigured")
      expect(companyCreate).toContain("Example: --tax-rates 20,10")
    })
  )
})
