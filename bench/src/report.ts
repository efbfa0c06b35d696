/**
 * What a run reports: the progress log on stderr, the rows and warnings the scenarios collect, the table
 * printed at the end and bench/results/<time>.json.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { quick, root } from "./options.js"
import type { Row } from "./row.js"

export const started = Date.now()
export const log = (message: string) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`)

export const rows: Array<Row> = []
export const warnings: Array<string> = []

const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? "" : n.toFixed(digits))

export const print = () => {
  const table = [
    ["scenario", "measure", "value", "baseline", "baseline value", "ratio (median of rounds)", "target", "met"]
  ]
  for (const r of rows) {
    const digits = r.unit === "ms" ? 1 : 0
    table.push([
      r.scenario,
      r.measure,
      Number.isNaN(r.value) ? "pending" : `${fmt(r.value, digits)} ${r.unit}`,
      r.baseline ?? "",
      r.baselineValue === undefined ? "" : `${fmt(r.baselineValue, digits)} ${r.unit}`,
      r.ratio === undefined ? "" : `${fmt(r.ratio, 2)}x`,
      r.target ?? "",
      r.met === undefined ? "" : r.met ? "yes" : "NO"
    ])
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)))
  const line = (row: Array<string>) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`
  process.stdout.write(
    `${line(table[0]!)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|\n${table.slice(1).map(line).join("\n")}\n`
  )
  const notes = rows.filter((r) => r.note !== undefined)
  if (notes.length > 0)
    process.stdout.write(`\n${notes.map((r) => `- ${r.scenario} / ${r.measure}: ${r.note}`).join("\n")}\n`)
  if (warnings.length > 0) process.stdout.write(`\nwarnings:\n${warnings.map((w) => `- ${w}`).join("\n")}\n`)
}

/** Prints the table and writes it, with the machine's facts, to bench/results/<stamp>[-quick].json. */
export const writeReport = (resultsDir: string, stamp: string, facts: Record<string, unknown>) => {
  print()
  const out = join(resultsDir, `${stamp}${quick ? "-quick" : ""}.json`)
  writeFileSync(
    out,
    JSON.stringify({ started_at: new Date(started).toISOString(), machine: facts, rows, warnings }, null, 2)
  )
  process.stdout.write(`\nwritten ${out.replace(`${root}/`, "")}\n`)
}
