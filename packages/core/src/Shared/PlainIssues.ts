import { ParseResult } from "effect"

/** One failing location as a client sees it: the field's JSON path and the rule it broke, in plain words. */
export interface PlainIssue {
  readonly path: string
  readonly message: string
}

/** Longest key a path names in full: a key is the client's, and an unknown one may be a megabyte long. */
const maxKeyLength = 100

const keyOf = (key: PropertyKey) => {
  const name = String(key)
  if (name.length <= maxKeyLength) return name
  // Not between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(name[maxKeyLength - 1]!) ? maxKeyLength - 1 : maxKeyLength
  return `${name.slice(0, end)}…`
}

const jsonPath = (path: ReadonlyArray<PropertyKey>, root: string) =>
  path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${keyOf(key)}`), root)

/** What a schema's "Expected …" names, as a rule: `"catalog"`, `a string`, `a uuid`, `null`. */
const plainType = (expected: string): string => {
  if (
    /^".*"$/.test(expected) ||
    /^-?\d/.test(expected) ||
    expected === "null" ||
    expected === "true" ||
    expected === "false"
  )
    return expected
  switch (expected) {
    case "string":
      return "a string"
    case "number":
      return "a number"
    case "boolean":
      return "true or false"
    case "Int":
    case "an integer":
      return "a whole number"
    case "a Universally Unique Identifier":
    case "UUID":
      return "a uuid"
    case "ExternalReference":
      return "an object {external_id}"
  }
  if (expected.startsWith("{") || /^[A-Z]\w*(Body|Input|Upsert|Record|Write)?$/.test(expected)) return "an object"
  if (/^(ReadonlyArray|Array)<|^readonly .*\[\]$/.test(expected)) return "a list"
  return expected
}

const joinOr = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`

const expectedPattern = /^Expected (.+?), actual [\s\S]*$/

/** One message in plain words: no echo of the value sent (it may be long or secret), no schema internals. */
const plainMessage = (tag: string, message: string): string => {
  if (tag === "Unexpected") return "is not an allowed property"
  if (tag === "Missing" || message === "is missing") return "is required"
  const expected = expectedPattern.exec(message)
  if (expected !== null) return `must be ${plainType(expected[1]!)}`
  const decode = /^Unable to decode .* into a (\w+)$/s.exec(message)
  if (decode !== null) return `must be a ${decode[1]}`
  return message
}

/**
 * The issues of a parse error as a client should read them: one per failing field, naming the rule.
 * A union reports each of its members' failures at the same path ("Expected "catalog", actual …",
 * "Expected "prices", actual …", and "Expected undefined" for an optional field): these become one
 * issue listing what the field may be ("must be "catalog", "prices" or "combined"").
 */
export const plainIssues = (error: ParseResult.ParseError, root = "$"): ReadonlyArray<PlainIssue> =>
  plainIssuesOf(ParseResult.ArrayFormatter.formatErrorSync(error), root)

/** `plainIssues` of issues already formatted (as HttpApi's decode errors carry them). */
export const plainIssuesOf = (
  issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>,
  root = "$"
): ReadonlyArray<PlainIssue> => {
  const byPath = new Map<string, Array<{ readonly tag: string; readonly message: string }>>()
  for (const issue of issues) {
    const path = jsonPath(issue.path, root)
    const list = byPath.get(path) ?? []
    list.push({ tag: issue._tag, message: issue.message })
    byPath.set(path, list)
  }
  const out: Array<PlainIssue> = []
  for (const [path, found] of byPath) {
    // "Expected undefined" only says the field is optional, which the other members' rules already imply.
    const relevant = found.length > 1 ? found.filter((issue) => !/^Expected undefined,/.test(issue.message)) : found
    const messages = [...new Set(relevant.map((issue) => plainMessage(issue.tag, issue.message)))]
    // Rules of a union's members ("must be a decimal string …", "must be null") read as one.
    if (messages.length > 1 && messages.every((message) => message.startsWith("must be "))) {
      out.push({ path, message: `must be ${joinOr(messages.map((message) => message.slice("must be ".length)))}` })
      continue
    }
    for (const message of messages) out.push({ path, message })
  }
  return out
}
