/**
 * Strict decoding whose work is bounded by the size of the input, not by how much of it is wrong.
 *
 * Effect's `errors: "all"` collects every failure: a megabyte of bad list items is ~100,000 issues,
 * seconds of CPU and an answer twenty times the body. And a list's item limit is a check, run only
 * after every item was decoded. Here instead:
 * 1. a list over its item limit is reported as such before any of its items is decoded, and only the
 *    items within the limit are decoded;
 * 2. the input is decoded once, stopping at its first failure (a valid input costs what it always did);
 * 3. only a failing input is walked again from that failure, to list up to `maxIssues` + 1 failing
 *    locations: each field and item is decoded stopping at its first failure, and only failing ones
 *    are entered. The issues found are those `errors: "all"` finds, up to the bound.
 */
import { Predicate, Result, Schema, SchemaAST, SchemaIssue, SchemaParser } from "effect"
import {
  expectedOf,
  type LocatedIssue,
  locatedIssues,
  type PlainIssue,
  plainIssuesOf
} from "../../Shared/PlainIssues.js"

/** The most failing locations an answer lists; a decode stops once it has found one more. */
export const maxIssues = 20

type Path = ReadonlyArray<PropertyKey>

type Parser = (input: unknown) => Result.Result<unknown, SchemaIssue.Issue>

type Excess = "error" | "ignore"

const parserCache = (errors: "first" | "all") => {
  const made = { error: new WeakMap<SchemaAST.AST, Parser>(), ignore: new WeakMap<SchemaAST.AST, Parser>() }
  return (ast: SchemaAST.AST, options: SchemaAST.ParseOptions): Parser => {
    const onExcessProperty: Excess = options.onExcessProperty === "error" ? "error" : "ignore"
    let parser = made[onExcessProperty].get(ast)
    if (parser === undefined) {
      parser = SchemaParser.decodeUnknownResult(Schema.make<Schema.Codec<unknown, unknown>>(ast), {
        errors,
        onExcessProperty
      })
      made[onExcessProperty].set(ast, parser)
    }
    return parser
  }
}

/** A decode that stops at its first failure; `options` are those in force where `ast` sits. */
const decodeFirst = parserCache("first")

/**
 * The options in force at `ast`: a `parseOptions` annotation of its own (`CommonFields.strict`) overrides
 * those it inherits. Effect 4 no longer reads such an annotation; this decoder still does.
 */
const optionsAt = (ast: SchemaAST.AST, inherited: SchemaAST.ParseOptions): SchemaAST.ParseOptions => {
  const own = SchemaAST.resolveAt<SchemaAST.ParseOptions>("parseOptions")(ast)
  return Predicate.isObject(own) ? { ...inherited, ...own } : inherited
}

/**
 * Issues found so far, by location; full once it holds `maxIssues` + 1 locations. A full list still takes
 * issues at a location it holds (the other members of a union that failed there), so that a location's
 * message is the one an unbounded decode gives ("must be a string or null").
 */
class Found {
  readonly issues: Array<LocatedIssue> = []
  private readonly locations = new Set<string>()
  full = false

  add(issue: LocatedIssue) {
    const location = issue.path.map(String).join("\u0000")
    if (this.full && !this.locations.has(location)) return
    if (!this.locations.has(location)) {
      this.locations.add(location)
      if (this.locations.size > maxIssues) this.full = true
    }
    this.issues.push(issue)
  }
}

/** An issue that is not entered further: its located failures, under `path`. */
const leaf = (issue: SchemaIssue.Issue, path: Path, found: Found) => {
  for (const located of locatedIssues(issue, path)) found.add(located)
}

/** The AST a raw input is read against: the encoded end of a transformed node. */
const encodedOf = (ast: SchemaAST.AST): SchemaAST.AST => (ast.encoding === undefined ? ast : SchemaAST.toEncoded(ast))

const holdsLists = new WeakMap<SchemaAST.AST, boolean>()

/** Whether a value of `ast` may contain a list (a recursive schema is assumed to). */
const mayHoldLists = (ast: SchemaAST.AST): boolean => {
  const known = holdsLists.get(ast)
  if (known !== undefined) return known
  holdsLists.set(ast, true)
  let holds: boolean
  const read = encodedOf(ast)
  switch (read._tag) {
    case "Arrays":
    case "Suspend":
      holds = true
      break
    case "Union":
      holds = read.types.some(mayHoldLists)
      break
    case "Objects":
      holds =
        read.propertySignatures.some((ps) => mayHoldLists(ps.type)) ||
        read.indexSignatures.some((is) => mayHoldLists(is.type))
      break
    default:
      holds = false
  }
  holdsLists.set(ast, holds)
  return holds
}

const ownKeys = (input: object): Array<string> => Object.keys(input)

const filtersOf = (checks: ReadonlyArray<SchemaAST.Check<unknown>>): Array<SchemaAST.Filter<unknown>> =>
  checks.flatMap((check) => (check._tag === "Filter" ? [check] : filtersOf(check.checks)))

/**
 * The length filters of a list node that set a most number of items (`isMaxLength`, `isLengthBetween`,
 * which declare it as their generation constraint), with the smallest such limit.
 */
const limitOf = (
  ast: SchemaAST.Arrays
): { readonly max: number; readonly filters: ReadonlyArray<SchemaAST.Filter<unknown>> } | undefined => {
  if (ast.checks === undefined) return undefined
  let max: number | undefined
  const filters: Array<SchemaAST.Filter<unknown>> = []
  for (const filter of filtersOf(ast.checks)) {
    const limit = filter.annotations?.arbitraryConstraint?.maxLength
    if (typeof limit !== "number") continue
    filters.push(filter)
    max = max === undefined ? limit : Math.min(max, limit)
  }
  return max === undefined ? undefined : { max, filters }
}

/** A list over its limit, cut to the limit: only the items it may have are decoded. */
interface Cut {
  readonly path: Path
  readonly list: ReadonlyArray<unknown>
}

/**
 * The lists of `input` over their item limits, found without decoding any item: each one's issue, and
 * the list cut to its limit (walked on, for lists in the items it keeps).
 */
const listsOverLimit = (
  ast: SchemaAST.AST,
  input: unknown,
  path: Path,
  found: Found,
  cuts: Array<Cut>,
  options: SchemaAST.ParseOptions
): void => {
  if (found.full || !mayHoldLists(ast)) return
  const read = encodedOf(ast)
  switch (read._tag) {
    case "Arrays": {
      if (!Array.isArray(input)) return
      let list: ReadonlyArray<unknown> = input
      const limit = limitOf(read)
      if (limit !== undefined && input.length > limit.max) {
        for (const filter of limit.filters) {
          const failed = filter.run(input, read, options)
          if (failed !== undefined) leaf(new SchemaIssue.Filter(filter, failed), path, found)
        }
        list = input.slice(0, limit.max)
        cuts.push({ path, list })
      }
      list.forEach((item, i) => {
        const type = read.elements[i] ?? read.rest[0]
        if (type !== undefined && mayHoldLists(type)) listsOverLimit(type, item, [...path, i], found, cuts, options)
      })
      return
    }
    case "Suspend":
      return listsOverLimit(read.thunk(), input, path, found, cuts, options)
    case "Union":
      for (const member of read.types) listsOverLimit(member, input, path, found, cuts, options)
      return
    case "Objects": {
      if (!Predicate.isObject(input)) return
      for (const ps of read.propertySignatures) {
        if (mayHoldLists(ps.type) && Object.hasOwn(input, ps.name)) {
          listsOverLimit(ps.type, input[ps.name as string], [...path, ps.name], found, cuts, options)
        }
      }
      for (const is of read.indexSignatures) {
        if (!mayHoldLists(is.type)) continue
        for (const key of ownKeys(input)) listsOverLimit(is.type, input[key], [...path, key], found, cuts, options)
      }
      return
    }
  }
}

/** `value` with `replacement` at `path`: the objects and lists on the way are copied, nothing is changed. */
const replaceAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [key, ...rest] = path as [PropertyKey, ...Array<PropertyKey>]
  if (Array.isArray(value)) {
    const copy = value.slice()
    copy[key as number] = replaceAt(value[key as number], rest, replacement)
    return copy
  }
  const record = value as { readonly [key: PropertyKey]: unknown }
  return { ...record, [key]: replaceAt(record[key], rest, replacement) }
}

/** One property of an object on its own: its decode answers a missing key as the object's does. */
const fieldAsts = new WeakMap<SchemaAST.PropertySignature, SchemaAST.Objects>()

const fieldAst = (ps: SchemaAST.PropertySignature): SchemaAST.Objects => {
  let ast = fieldAsts.get(ps)
  if (ast === undefined) {
    ast = new SchemaAST.Objects([ps], [])
    fieldAsts.set(ps, ast)
  }
  return ast
}

/** The issue within a one-property object's failure: the property's own, without the object around it. */
const innerOf = (issue: SchemaIssue.Issue): SchemaIssue.Issue =>
  issue._tag === "Composite" && issue.issues.length === 1 && issue.issues[0]._tag === "Pointer"
    ? issue.issues[0].issue
    : issue

/** Every field of an object that fails (unknown keys, missing fields, failing values), as `errors: "all"` lists them. */
const fields = (
  ast: SchemaAST.Objects,
  input: { readonly [key: string]: unknown },
  path: Path,
  found: Found,
  options: SchemaAST.ParseOptions
) => {
  const matches = (key: string) =>
    ast.indexSignatures.some((is) => Result.isSuccess(decodeFirst(is.parameter, options)(key)))
  if (options.onExcessProperty === "error") {
    const named = new Set<PropertyKey>(ast.propertySignatures.map((ps) => ps.name))
    for (const key of ownKeys(input)) {
      if (found.full) return
      if (!named.has(key) && !matches(key)) found.add({ path: [...path, key], message: "is not an allowed property" })
    }
  }
  for (const ps of ast.propertySignatures) {
    if (found.full) return
    const key = ps.name as string
    const present = Object.hasOwn(input, key)
    const decoded = decodeFirst(fieldAst(ps), options)(present ? { [key]: input[key] } : {})
    if (Result.isFailure(decoded)) {
      const issue = innerOf(decoded.failure)
      if (present) collect(issue, input[key], [...path, key], found, options)
      else leaf(issue, [...path, key], found)
    }
  }
  for (const is of ast.indexSignatures) {
    const decode = decodeFirst(is.type, options)
    for (const key of ownKeys(input)) {
      if (found.full) return
      if (Result.isFailure(decodeFirst(is.parameter, options)(key))) continue
      const decoded = decode(input[key])
      if (Result.isFailure(decoded)) collect(decoded.failure, input[key], [...path, key], found, options)
    }
  }
}

/** Every failing item of a list. */
const items = (
  type: SchemaAST.AST,
  input: ReadonlyArray<unknown>,
  path: Path,
  found: Found,
  options: SchemaAST.ParseOptions
) => {
  const decode = decodeFirst(type, options)
  for (let i = 0; i < input.length && !found.full; i++) {
    const decoded = decode(input[i])
    if (Result.isFailure(decoded)) collect(decoded.failure, input[i], [...path, i], found, options)
  }
}

/**
 * The failures of `input` from `issue`, the first failure of decoding it: objects, lists and unions are
 * entered (each member of a union that failed), everything else is a leaf. Once the list is full, objects and lists are left at once; a union's members are still visited for their leaves at its
 * location.
 */
const collect = (
  issue: SchemaIssue.Issue,
  input: unknown,
  path: Path,
  found: Found,
  inherited: SchemaAST.ParseOptions
): void => {
  switch (issue._tag) {
    case "Encoding":
      return collect(issue.issue, input, path, found, optionsAt(issue.ast, inherited))
    case "Composite": {
      const ast = issue.ast
      const options = optionsAt(ast, inherited)
      // A failing check: the structure decoded, and only a node's first failing check is reported.
      if (issue.issues[0]._tag === "Filter") return leaf(issue, path, found)
      if (SchemaAST.isObjects(ast) && Predicate.isObject(input)) return fields(ast, input, path, found, options)
      if (SchemaAST.isArrays(ast) && Array.isArray(input) && ast.elements.length === 0 && ast.rest.length === 1) {
        return items(ast.rest[0]!, input, path, found, options)
      }
      return leaf(issue, path, found)
    }
    case "AnyOf": {
      const ast = issue.ast
      const options = optionsAt(ast, inherited)
      for (const member of ast.types) {
        const tried = issue.issues.filter((inner) => "ast" in inner && inner.ast === member)
        if (tried.length === 0) found.add({ path, message: `must be ${expectedOf(member)}` })
        for (const inner of tried) collect(inner, input, path, found, options)
      }
      // The union's own search may report a made-up member (a missing tag): a leaf.
      for (const inner of issue.issues) {
        if (!("ast" in inner && ast.types.includes(inner.ast))) leaf(inner, path, found)
      }
      return
    }
    default:
      return leaf(issue, path, found)
  }
}

/**
 * A decoder of `schema` that fails with at most `maxIssues` + 1 failing locations (one more than an
 * answer lists, so that it can say more were found), as `PlainIssue`s under `root`. Unknown keys are
 * errors unless `onExcessProperty` is "ignore" (HttpApi's default for the parts of a request it decodes);
 * a schema's own `parseOptions` annotation decides below it either way.
 */
export const boundedDecoder = <A>(schema: Schema.Decoder<A>, onExcessProperty: "error" | "ignore" = "error") => {
  const options = optionsAt(schema.ast, { onExcessProperty })
  const decode = decodeFirst(schema.ast, options) as (input: unknown) => Result.Result<A, SchemaIssue.Issue>
  return (input: unknown, root = "$"): Result.Result<A, ReadonlyArray<PlainIssue>> => {
    const found = new Found()
    const cuts: Array<Cut> = []
    listsOverLimit(schema.ast, input, [], found, cuts, options)
    // In the order found, a list before the lists within its items.
    const bounded = cuts.reduce((value, cut) => replaceAt(value, cut.path, cut.list), input)
    const decoded = decode(bounded)
    if (Result.isSuccess(decoded)) {
      return cuts.length === 0 ? Result.succeed(decoded.success) : Result.fail(plainIssuesOf(found.issues, root))
    }
    collect(decoded.failure, bounded, [], found, options)
    if (found.issues.length === 0) leaf(decoded.failure, [], found)
    return Result.fail(plainIssuesOf(found.issues, root))
  }
}
