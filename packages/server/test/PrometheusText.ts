/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for the tests: every line must be a
 * `# HELP`, a `# TYPE`, another comment, or a sample of a family declared by `# TYPE` before it, with
 * valid metric and label names, escaped label values and a number; a histogram's buckets must be
 * cumulative and end with `le="+Inf"` equal to its `_count`. Anything else throws, naming the line.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped"
  readonly samples: ReadonlyArray<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const types = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

const parseValue = (raw: string, line: number): number => {
  if (raw === "+Inf") return Number.POSITIVE_INFINITY
  if (raw === "-Inf") return Number.NEGATIVE_INFINITY
  if (raw === "NaN") return Number.NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw))
    throw new Error(`line ${line}: "${raw}" is not a sample value`)
  return Number(raw)
}

/** `{a="x",b="y\"z"}` from `at` (the `{`); returns the labels and the index after `}`. */
const parseLabels = (text: string, at: number, line: number): [Record<string, string>, number] => {
  const labels: Record<string, string> = {}
  let i = at + 1
  for (;;) {
    if (text[i] === "}") return [labels, i + 1]
    const eq = text.indexOf("=", i)
    const name = text.slice(i, eq)
    if (eq === -1 || !labelName.test(name)) throw new Error(`line ${line}: bad label name "${name}"`)
    if (name in labels) throw new Error(`line ${line}: label ${name} repeated`)
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label ${name} needs a quoted value`)
    let value = ""
    let j = eq + 2
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] !== "\\") value += text[j]
      else {
        const next = text[++j]
        if (next === "n") value += "\n"
        else if (next === "\\" || next === '"') value += next
        else throw new Error(`line ${line}: bad escape \\${next} in label ${name}`)
      }
    }
    if (j >= text.length) throw new Error(`line ${line}: unterminated value of label ${name}`)
    labels[name] = value
    i = j + 1
    if (text[i] === ",") i++
    else if (text[i] !== "}") throw new Error(`line ${line}: expected , or } after label ${name}`)
  }
}

const familyOf = (name: string, declared: ReadonlyMap<string, Family["type"]>) => {
  if (declared.has(name)) return name
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.slice(0, -suffix.length)
    if (
      name.endsWith(suffix) &&
      (declared.get(base) === "histogram" || (suffix !== "_bucket" && declared.get(base) === "summary"))
    )
      return base
  }
  return undefined
}

const checkHistogram = (family: Family) => {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (sample.name.endsWith("_bucket")) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`)
      entry.buckets.push([parseValue(le, 0), sample.value])
    } else if (sample.name.endsWith("_count")) entry.count = sample.value
  }
  for (const [key, { buckets, count }] of series) {
    buckets.sort((a, b) => a[0] - b[0])
    buckets.forEach(([, n], i) => {
      if (i > 0 && n < buckets[i - 1]![1]) throw new Error(`${family.name}${key}: buckets are not cumulative`)
    })
    const last = buckets[buckets.length - 1]
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY || last[1] !== count)
      throw new Error(`${family.name}${key}: the +Inf bucket must equal _count`)
  }
}

export const parse = (text: string): ReadonlyArray<Family> => {
  const declared = new Map<string, Family["type"]>()
  const samples = new Map<string, Array<Sample>>()
  text.split("\n").forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === "") return
    if (raw.startsWith("#")) {
      const [, keyword, name, rest] = /^#\s+(\S+)\s+(\S+)\s*(.*)$/.exec(raw) ?? []
      if (keyword === "TYPE") {
        if (!metricName.test(name!) || !types.has(rest!)) throw new Error(`line ${line}: bad TYPE line`)
        if (declared.has(name!)) throw new Error(`line ${line}: ${name} declared twice`)
        if (samples.has(name!)) throw new Error(`line ${line}: TYPE of ${name} after its samples`)
        declared.set(name!, rest as Family["type"])
      } else if (keyword === "HELP" && !metricName.test(name!)) throw new Error(`line ${line}: bad HELP line`)
      return
    }
    const nameEnd = raw.search(/[{ ]/)
    const name = raw.slice(0, nameEnd)
    if (nameEnd === -1 || !metricName.test(name)) throw new Error(`line ${line}: bad metric name in "${raw}"`)
    const [labels, after] = raw[nameEnd] === "{" ? parseLabels(raw, nameEnd, line) : [{}, nameEnd]
    const fields = raw.slice(after).trim().split(/\s+/)
    if (fields.length < 1 || fields.length > 2 || (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])))
      throw new Error(`line ${line}: expected a value and an optional timestamp`)
    const family = familyOf(name, declared) ?? name
    const list = samples.get(family) ?? []
    list.push({ name, labels, value: parseValue(fields[0]!, line) })
    samples.set(family, list)
  })
  const families = Array.from(samples, ([name, list]): Family => ({
    name,
    type: declared.get(name) ?? "untyped",
    samples: list
  }))
  for (const family of families) if (family.type === "histogram") checkHistogram(family)
  return families
}
