/** Parsed command line: positional words and `--name value` options (`--name=value` works too). */
export interface Args {
  readonly words: ReadonlyArray<string>
  readonly options: ReadonlyMap<string, string>
}

export class UsageError extends Error {
  readonly _tag = "UsageError"
}

/** Options that take no value: present or not. */
const switches: ReadonlySet<string> = new Set(["all"])

export const parseArgs = (argv: ReadonlyArray<string>): Args => {
  const words: Array<string> = []
  const options = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("--")) {
      words.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    if (eq > 0) {
      options.set(arg.slice(2, eq), arg.slice(eq + 1))
      continue
    }
    if (switches.has(arg.slice(2))) {
      options.set(arg.slice(2), "on")
      continue
    }
    const next = argv[i + 1]
    if (next === undefined || next.startsWith("--")) throw new UsageError(`${arg} needs a value`)
    options.set(arg.slice(2), next)
    i++
  }
  return { words, options }
}

export const required = (args: Args, name: string): string => {
  const value = args.options.get(name)
  if (value === undefined) throw new UsageError(`--${name} is required`)
  return value
}

export const list = (value: string | undefined): ReadonlyArray<string> | undefined =>
  value === undefined ? undefined : value.split(",").map((s) => s.trim()).filter((s) => s !== "")

/** on/off, true/false, yes/no */
export const flag = (value: string | undefined, name: string): boolean | undefined => {
  if (value === undefined) return undefined
  if (["on", "true", "yes", "1"].includes(value)) return true
  if (["off", "false", "no", "0"].includes(value)) return false
  throw new UsageError(`--${name} takes on or off`)
}

export const integer = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number`)
  return Number(value)
}
