import { Schema, type SchemaAST, type SchemaIssue } from "effect"

/** One failing location as a client sees it: the field's JSON path and the rule it broke, in plain words. */
export interface PlainIssue {
  readonly path: string
  readonly message: string
}

/** One failure of a decode at its location (a path of keys), already in plain words. */
export interface LocatedIssue {
  readonly path: ReadonlyArray<PropertyKey>
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

/** What a filter's `expected` names, as a rule: Effect's wording where ours differs. */
const plainExpected = (expected: string): string => {
  switch (expected) {
    case "an integer":
      return "a whole number"
    // A string that is no number at all (`NumberFromString`'s own failure in Effect 3).
    case "a finite number":
      return "a number"
    case "a UUID":
    case "a Universally Unique Identifier":
      return "a uuid"
  }
  return expected
}

/**
 * What a value of `ast` is, as a rule: `"catalog"`, `a string`, `null`, `an object`. A schema's identifier
 * is not shown (it names the schema, not the rule; a refined string is "a string" to a value of another
 * type); a node's own `expected` annotation is.
 */
export const expectedOf = (ast: SchemaAST.AST): string => {
  const expected = ast.annotations?.["expected"]
  if (typeof expected === "string") return expected
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "true or false"
    case "Null":
      return "null"
    case "Undefined":
    case "Void":
      return "undefined"
    case "Literal":
      return typeof ast.literal === "string" ? JSON.stringify(ast.literal) : String(ast.literal)
    case "Enum":
      return ast.enums.map(([, value]) => JSON.stringify(value)).join(" or ")
    case "Objects":
      return "an object"
    case "Arrays":
      return "a list"
    case "Union":
      return ast.types.map(expectedOf).join(" or ")
    case "Suspend":
      return expectedOf(ast.thunk())
    default:
      return "a valid value"
  }
}

/** The message of an issue that is not entered further. */
const leafMessage = (issue: SchemaIssue.Leaf): string => {
  switch (issue._tag) {
    case "MissingKey":
      return issue.annotations?.messageMissingKey ?? "is required"
    case "UnexpectedKey":
      return "is not an allowed property"
    case "InvalidType":
      return `must be ${expectedOf(issue.ast)}`
    case "InvalidValue": {
      const { expected, message } = issue.annotations ?? {}
      if (message !== undefined) return message
      return expected === undefined ? "is not valid" : `must be ${plainExpected(expected)}`
    }
    case "Forbidden":
      return issue.annotations?.message ?? "is not allowed"
    case "OneOf":
      return "must match exactly one of its forms"
  }
}

/**
 * The failures of an issue, each at its location, in plain words: no echo of the value sent (it may be
 * long or secret), no schema internals. A union that failed reports each of its members: the rule of a
 * member that was tried, or what the member is for one the value's type ruled out (`must be a string`).
 */
export const locatedIssues = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey> = []): Array<LocatedIssue> => {
  const out: Array<LocatedIssue> = []
  const go = (
    issue: SchemaIssue.Issue,
    path: ReadonlyArray<PropertyKey>,
    override: string | undefined,
    fallback: string | undefined
  ): void => {
    switch (issue._tag) {
      case "Pointer":
        return go(issue.issue, [...path, ...issue.path], override, fallback)
      case "Encoding":
        return go(issue.issue, path, override, fallback)
      case "Composite":
        // A value breaks one rule at a time, as with Effect 3's refinements: of a node's failing checks
        // (all listed under `errors: "all"`), its first; checks run only once the structure decoded.
        if (issue.issues[0]._tag === "Filter") return go(issue.issues[0], path, override, fallback)
        for (const inner of issue.issues) go(inner, path, override, fallback)
        return
      case "Filter": {
        const { expected, message } = issue.filter.annotations ?? {}
        return go(
          issue.issue,
          path,
          override ?? message,
          expected === undefined ? undefined : `must be ${plainExpected(expected)}`
        )
      }
      case "AnyOf": {
        for (const member of issue.ast.types) {
          const tried = issue.issues.filter((inner) => "ast" in inner && inner.ast === member)
          if (tried.length === 0) out.push({ path, message: override ?? `must be ${expectedOf(member)}` })
          for (const inner of tried) go(inner, path, override, undefined)
        }
        for (const inner of issue.issues) {
          if (!("ast" in inner && issue.ast.types.includes(inner.ast))) go(inner, path, override, undefined)
        }
        return
      }
      case "InvalidValue":
        return void out.push({
          path,
          message:
            override ??
            issue.annotations?.message ??
            (issue.annotations?.expected === undefined ? fallback : undefined) ??
            leafMessage(issue)
        })
      default:
        return void out.push({ path, message: override ?? leafMessage(issue) })
    }
  }
  go(issue, path, undefined, undefined)
  return out
}

const joinOr = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`

/**
 * The issues of a decode error as a client should read them: one per failing field, naming the rule.
 * A union reports each of its members' failures at the same path ("must be "catalog"", "must be
 * "prices"", and "must be undefined" for an optional field): these become one issue listing what the
 * field may be ("must be "catalog", "prices" or "combined"").
 */
export const plainIssues = (error: Schema.SchemaError | SchemaIssue.Issue, root = "$"): ReadonlyArray<PlainIssue> =>
  plainIssuesOf(locatedIssues(Schema.isSchemaError(error) ? error.issue : error), root)

/** `plainIssues` of issues already located (as the bounded decoder collects them). */
export const plainIssuesOf = (issues: ReadonlyArray<LocatedIssue>, root = "$"): ReadonlyArray<PlainIssue> => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of issues) {
    const path = jsonPath(issue.path, root)
    const list = byPath.get(path) ?? []
    list.push(issue.message)
    byPath.set(path, list)
  }
  const out: Array<PlainIssue> = []
  for (const [path, found] of byPath) {
    // "must be undefined" only says the field is optional, which the other members' rules already imply.
    const relevant = found.length > 1 ? found.filter((message) => message !== "must be undefined") : found
    const messages = [...new Set(relevant)]
    // Rules of a union's members ("must be a decimal string …", "must be null") read as one.
    if (messages.length > 1 && messages.every((message) => message.startsWith("must be "))) {
      out.push({ path, message: `must be ${joinOr(messages.map((message) => message.slice("must be ".length)))}` })
      continue
    }
    for (const message of messages) out.push({ path, message })
  }
  return out
}
