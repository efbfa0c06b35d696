/**
 * CSV as spreadsheets and shop systems export it (RFC 4180): quoted fields with doubled quotes and line
 * breaks inside, a comma, semicolon or tab delimiter told apart on the header line.
 */
import { Stream } from "effect"
import type { Line } from "./Lines.js"

export type Delimiter = "," | ";" | "\t"

export interface CsvRow {
  readonly fields: ReadonlyArray<string>
  /** The row's first line, and its byte range in the file. */
  readonly line: number
  readonly start: number
  readonly end: number
}

/** The delimiter that splits the header line into the most fields (outside quotes); a comma on a tie. */
export const detectDelimiter = (header: string): Delimiter => {
  const counts: Record<Delimiter, number> = { ",": 0, ";": 0, "\t": 0 }
  let quoted = false
  for (const char of header) {
    if (char === '"') quoted = !quoted
    else if (!quoted && (char === "," || char === ";" || char === "\t")) counts[char]++
  }
  return counts[";"] > counts[","] && counts[";"] >= counts["\t"] ? ";" : counts["\t"] > counts[","] ? "\t" : ","
}

/** A row being read: the fields so far, the field being read, and whether it is inside quotes. */
interface Partial {
  readonly fields: Array<string>
  field: string
  quoted: boolean
  /** The field started with a quote (so a quote inside it is special). */
  wasQuoted: boolean
}

const fresh = (): Partial => ({ fields: [], field: "", quoted: false, wasQuoted: false })

/** Reads one line into the row; true when the row is complete (not inside quotes at the line's end). */
const feed = (row: Partial, text: string, delimiter: Delimiter): boolean => {
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (row.quoted) {
      if (char !== '"') row.field += char
      else if (text[i + 1] === '"') {
        row.field += '"'
        i++
      } else row.quoted = false
    } else if (char === delimiter) {
      row.fields.push(row.field)
      row.field = ""
      row.wasQuoted = false
    } else if (char === '"' && row.field === "" && !row.wasQuoted) {
      row.quoted = true
      row.wasQuoted = true
    } else row.field += char
  }
  if (row.quoted) {
    row.field += "\n"
    return false
  }
  row.fields.push(row.field)
  return true
}

/**
 * The rows of a CSV file's lines, the header first; blank lines are skipped. The delimiter is taken from
 * the header line unless given. A quoted field left open at the end of the file closes there.
 */
export const rows = <E, R>(lines: Stream.Stream<Line, E, R>, delimiter?: Delimiter): Stream.Stream<CsvRow, E, R> =>
  Stream.suspend(() => {
    let used = delimiter
    let row = fresh()
    let first: Line | undefined
    let lastEnd = 0
    const take = (line: Line): ReadonlyArray<CsvRow> => {
      if (first === undefined && line.text === "") return []
      used ??= detectDelimiter(line.text)
      first ??= line
      lastEnd = line.end
      if (!feed(row, line.text, used)) return []
      const done: CsvRow = { fields: row.fields, line: first.number, start: first.start, end: line.end }
      row = fresh()
      first = undefined
      return [done]
    }
    const unclosed = Stream.suspend(() =>
      first === undefined
        ? Stream.empty
        : Stream.succeed<CsvRow>({
            fields: [...row.fields, row.field.replace(/\n$/, "")],
            line: first.number,
            start: first.start,
            end: lastEnd
          })
    )
    return lines.pipe(Stream.map(take), Stream.flattenIterable, Stream.concat(unclosed))
  })
