import { NodeServices } from "@effect/platform-node"
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
      Effect.provideService(parse([...words, "--help"]), Console.Console, {
        ...console,
        log: (...args: ReadonlyArray<unknown>) => void printed.push(args.join(" "))
      })
    )
    expect(action._tag).toBe("Printed")
    return plain(printed.join("\n"))
  }).pipe(Effect.provide(NodeServices.layer))

/**
 * The entries of a section (FLAGS, ARGUMENTS, SUBCOMMANDS): each name line (indented two spaces) with the
 * paragraphs indented under it, as effect/cli 4 lays help out.
 */
const entries = (help: string, section: string) => {
  const lines = help.split("\n")
  const start = lines.indexOf(section)
  if (start < 0) return []
  const out: Array<{ name: string; paragraphs: Array<string> }> = []
  for (const line of lines.slice(start + 1)) {
    if (/^[A-Z]+$/.test(line)) break
    if (line === "") continue
    if (/^ {2}\S/.test(line)) out.push({ name: line.trim(), paragraphs: [] })
    else out.at(-1)!.paragraphs.push(line.trim())
  }
  return out
}

/** The command line of the USAGE section (`catalog-sync key create [flags]`). */
const usageOf = (help: string) => {
  const lines = help.split("\n")
  const start = lines.indexOf("USAGE")
  return start < 0 ? undefined : lines[start + 1]?.trim()
}

/** What the library writes under an option by itself: its value type and whether it is optional. */
const generic = [/^One of the following: /, /^This setting is optional\.$/, /^A true or false value\.$/]

/** Every command's words: the root, and each command its parent's help lists under SUBCOMMANDS. */
const walk = (words: ReadonlyArray<string>): Array<ReadonlyArray<string>> => [
  words,
  ...entries(Effect.runSync(helpOf(words)), "SUBCOMMANDS").flatMap((entry) => walk([...words, entry.name]))
]
const paths = walk([])

describe("catalog-sync --help", () => {
  it("walks every command", () => {
    expect(paths.length).toBeGreaterThan(30)
    expect(paths).toContainEqual(["key", "create"])
    expect(paths).toContainEqual(["jobs", "resume"])
  })

  it.effect.each(paths.map((words) => [words.join(" ") || "(root)", words] as const))(
    "%s: no placeholder, the full command in the usage, a description for every flag, argument and subcommand",
    ([, words]) =>
      Effect.gen(function* () {
        const help = yield* helpOf(words)
        expect(help).not.toContain("user-defined piece of text")
        const usage = usageOf(help)
        expect(
          usage === ["catalog-sync", ...words].join(" ") ||
            usage?.startsWith(`${["catalog-sync", ...words].join(" ")} `),
          `usage: ${usage}`
        ).toBe(true)
        for (const entry of [
          ...entries(help, "FLAGS"),
          ...entries(help, "ARGUMENTS"),
          ...entries(help, "SUBCOMMANDS")
        ]) {
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
