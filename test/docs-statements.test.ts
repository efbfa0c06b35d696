/**
 * docs/architecture.md follows four requests down to their SQL statements, numbered. Those counts are the
 * ones `packages/server/test/statements.e2e.test.ts` holds the server to, taken from the same constant
 * (`StatementCounts.ts`): a statement added to or removed from a hot path changes that constant, and then
 * this test names the trace or sentence of the page that still shows the old count.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { statementCounts } from "../packages/server/test/StatementCounts.js"

const page = readFileSync(fileURLToPath(new URL("../docs/architecture.md", import.meta.url)), "utf8")

/** The text of the `### ` section whose heading starts with `heading`, up to the next heading. */
const section = (heading: string): string => {
  const start = page.indexOf(`\n### ${heading}`)
  expect(start, `docs/architecture.md has a section "### ${heading}"`).toBeGreaterThan(-1)
  const end = page.slice(start + 1).search(/\n#{2,3} /)
  return end === -1 ? page.slice(start) : page.slice(start, start + 1 + end)
}

/**
 * The statements a section's trace numbers: numbered lines (`   3 adapter-sql/...`) inside its code block,
 * each run of numbers starting again at 1 (an import's request, then its job) adding its last number.
 */
const numbered = (text: string): number => {
  const trace = text.slice(text.indexOf("```\n"), text.lastIndexOf("```"))
  const numbers = [...trace.matchAll(/^ {1,4}(\d+) \S/gm)].map((m) => Number(m[1]))
  let total = 0
  numbers.forEach((n, i) => {
    expect(n, `the numbers of "${text.split("\n")[1]}" run 1, 2, 3... (${numbers.join(", ")})`).toBe(
      n === 1 ? 1 : numbers[i - 1]! + 1
    )
    if (numbers[i + 1] !== n + 1) total += n
  })
  return total
}

/** The number the page writes in `sentence`, whose `(\d+)` marks it. */
const said = (text: string, sentence: RegExp): number => {
  const match = sentence.exec(text)
  expect(match, `docs/architecture.md says ${sentence}`).not.toBeNull()
  return Number(match![1])
}

const { sqlite, postgres } = statementCounts

describe("docs/architecture.md's request traces count the statements statements.e2e pins", () => {
  it("the write: its numbered statements are a create's; the update and PostgreSQL's counts as pinned", () => {
    const write = section("A write:")
    expect(numbered(write)).toBe(sqlite.create)
    expect(said(write, /An update of p1 runs (\d+) statements/)).toBe(sqlite.update)
    expect(said(write, /On PostgreSQL a create runs (\d+)\s+statements/)).toBe(postgres.create)
    expect(said(write, /statements and an update (\d+)/)).toBe(postgres.update)
  })

  it("the read by id, on SQLite and on PostgreSQL", () => {
    const read = section("A read:")
    expect(numbered(read)).toBe(sqlite.getById)
    expect(said(read, /On PostgreSQL: (\d+) statements/)).toBe(postgres.getById)
  })

  it("the caught-up feed poll, on SQLite and on PostgreSQL", () => {
    const poll = section("A feed poll")
    expect(numbered(poll)).toBe(sqlite.feedPoll)
    expect(said(poll, /On PostgreSQL: (\d+) statements/)).toBe(postgres.feedPoll)
  })

  it("the import from its submission to the worker's next claim, on SQLite and on PostgreSQL", () => {
    const imports = section("An import:")
    expect(numbered(imports)).toBe(sqlite.importOfOne)
    expect(said(imports, /(\d+) statements from the submission/)).toBe(sqlite.importOfOne)
    expect(said(imports, /On PostgreSQL, (\d+)/)).toBe(postgres.importOfOne)
  })
})
