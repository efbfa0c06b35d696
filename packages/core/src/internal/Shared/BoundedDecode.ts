/**
 * Strict decoding whose work is bounded by the size of the input, not by how much of it is wrong.
 *
 * Effect's `errors: "all"` collects every failure: a megabyte of bad list items is ~100,000 issues,
 * seconds of CPU and an answer twenty times the body. And a list's item limit is a filter, checked only
 * after every item was decoded. Here instead:
 * 1. a list over its item limit is reported as such before any of its items is decoded, and only the
 *    items within the limit are decoded;
 * 2. the input is decoded once, stopping at its first failure (a valid input costs what it always did);
 * 3. only a failing input is walked again from that failure, to list up to `maxIssues` + 1 failing
 *    locations: each field and item is decoded stopping at its first failure, and only failing ones
 *    are entered. The issues found are those `errors: "all"` finds, up to the bound.
 */
import { Either, Option, ParseResult, Predicate, Schema } from "effect"
import * as AST from "effect/SchemaAST"
import { type PlainIssue, plainIssuesOf } from "../../Shared/PlainIssues.js"

/** The most failing locations an answer lists; a decode stops once it has found one more. */
export const maxIssues = 20

type Path = ReadonlyArray<PropertyKey>

type Parser = (input: unknown) => Either.Either<unknown, ParseResult.ParseIssue>

/** Decoders made so far, by whether unknown keys are errors (the one option a schema here sets). */
const parsers = { error: new WeakMap<AST.AST, Parser>(), ignore: new WeakMap<AST.AST, Parser>() }

/** A decode that stops at its first failure; `options` are those in force where `ast` sits. */
const decodeFirst = (ast: AST.AST, options: AST.ParseOptions): Parser => {
  const onExcessProperty = options.onExcessProperty === "error" ? "error" : "ignore"
  let parser = parsers[onExcessProperty].get(ast)
  if (parser === undefined) {
    parser = ParseResult.decodeUnknownEither(Schema.make(ast), { errors: "first", onExcessProperty })
    parsers[onExcessProperty].set(ast, parser)
  }
  return parser
}

/** The options in force at `ast`: its own parse options annotation overrides those it inherits, as in Effect. */
const optionsAt = (ast: AST.AST, inherited: AST.ParseOptions): AST.ParseOptions =>
  Option.match(AST.getParseOptionsAnnotation(ast), {
    onNone: () => inherited,
    onSome: (own) => ({ ...inherited, ...own })
  })

/**
 * Issues found so far, by location; full once it holds `maxIssues` + 1 locations. A full list still takes
 * issues at a location it holds (the other members of a union that failed there), so that a location's
 * message is the one an unbounded decode gives ("must be a string or null").
 */
class Found {
  readonly issues: Array<ParseResult.ArrayFormatterIssue> = []
  private readonly locations = new Set<string>()
  full = false

  add(path: Path, tag: ParseResult.ArrayFormatterIssue["_tag"], message: string) {
    const location = path.map(String).join("\u0000")
    if (this.full && !this.locations.has(location)) return
    if (!this.locations.has(location)) {
      this.locations.add(location)
      if (this.locations.size > maxIssues) this.full = true
    }
    this.issues.push({ _tag: tag, path, message })
  }
}

/** A value as a message may quote it: formatting a large value costs as much as the value, and no answer shows it. */
const elided = (value: unknown) =>
  (typeof value === "object" && value !== null) || (typeof value === "string" && value.length > 64) ? "…" : value

const listed = (issues: ParseResult.Composite["issues"]): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issues) ? issues : [issues as ParseResult.ParseIssue]

const withoutValues = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return new ParseResult.Type(issue.ast, elided(issue.actual), issue.message)
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, withoutValues(issue.issue))
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, withoutValues(issue.issue))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, withoutValues(issue.issue))
    case "Composite":
      return new ParseResult.Composite(
        issue.ast,
        issue.actual,
        listed(issue.issues).map(withoutValues) as [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>],
        issue.output
      )
    default:
      return issue
  }
}

/** An issue that is not entered further: its formatted messages, at `path`. */
const leaf = (issue: ParseResult.ParseIssue, path: Path, found: Found) => {
  for (const formatted of ParseResult.ArrayFormatter.formatIssueSync(withoutValues(issue))) {
    found.add([...path, ...formatted.path], formatted._tag, formatted.message)
  }
}

const holdsLists = new WeakMap<AST.AST, boolean>()

/** Whether a value of `ast` may contain a list (a recursive schema is assumed to). */
const mayHoldLists = (ast: AST.AST): boolean => {
  const known = holdsLists.get(ast)
  if (known !== undefined) return known
  holdsLists.set(ast, true)
  let holds: boolean
  switch (ast._tag) {
    case "TupleType":
      holds = true
      break
    case "Refinement":
      holds = mayHoldLists(ast.from)
      break
    case "Transformation":
      holds = mayHoldLists(ast.from)
      break
    case "Union":
      holds = ast.types.some(mayHoldLists)
      break
    case "TypeLiteral":
      holds =
        ast.propertySignatures.some((ps) => mayHoldLists(ps.type)) ||
        ast.indexSignatures.some((is) => mayHoldLists(is.type))
      break
    case "Suspend":
      holds = true
      break
    default:
      holds = false
  }
  holdsLists.set(ast, holds)
  return holds
}

const ownKeys = (input: object): Array<string> => Object.keys(input)

/** Filters that read a list's length only, and so apply to the list as sent. */
const lengthFilters: ReadonlySet<unknown> = new Set([
  Schema.MinItemsSchemaId,
  Schema.MaxItemsSchemaId,
  Schema.ItemsCountSchemaId
])

/** The most items a list under `ast` may have, when `ast` is a length filter that sets one. */
const maxItemsOf = (ast: AST.Refinement): number | undefined => {
  if (!Option.exists(AST.getSchemaIdAnnotation(ast), (id) => lengthFilters.has(id))) return undefined
  const jsonSchema: { readonly maxItems?: unknown } | undefined = Option.getOrUndefined(
    AST.getJSONSchemaAnnotation(ast)
  )
  return typeof jsonSchema?.maxItems === "number" ? jsonSchema.maxItems : undefined
}

/** A list over its limit, cut to the limit: only the items it may have are decoded. */
interface Cut {
  readonly path: Path
  readonly list: ReadonlyArray<unknown>
}

/**
 * The lists of `input` over their item limits (`maxItems`, `itemsCount`), found without decoding any
 * item: each one's issue, and the list cut to its limit (walked on, for lists in the items it keeps).
 */
const listsOverLimit = (ast: AST.AST, input: unknown, path: Path, found: Found, cuts: Array<Cut>): void => {
  if (found.full || !mayHoldLists(ast)) return
  switch (ast._tag) {
    case "Refinement": {
      const max = Array.isArray(input) ? maxItemsOf(ast) : undefined
      if (max !== undefined && (input as ReadonlyArray<unknown>).length > max) {
        const failed = ast.filter(input, {}, ast)
        if (Option.isSome(failed)) leaf(new ParseResult.Refinement(ast, input, "Predicate", failed.value), path, found)
        const list = (input as ReadonlyArray<unknown>).slice(0, max)
        cuts.push({ path, list })
        return listsOverLimit(ast.from, list, path, found, cuts)
      }
      return listsOverLimit(ast.from, input, path, found, cuts)
    }
    case "Transformation":
      return listsOverLimit(ast.from, input, path, found, cuts)
    case "Suspend":
      return listsOverLimit(ast.f(), input, path, found, cuts)
    case "Union":
      for (const member of ast.types) listsOverLimit(member, input, path, found, cuts)
      return
    case "TypeLiteral": {
      if (!Predicate.isRecord(input)) return
      for (const ps of ast.propertySignatures) {
        if (mayHoldLists(ps.type) && Object.hasOwn(input, ps.name)) {
          listsOverLimit(ps.type, input[ps.name], [...path, ps.name], found, cuts)
        }
      }
      for (const is of ast.indexSignatures) {
        if (!mayHoldLists(is.type)) continue
        for (const key of ownKeys(input)) listsOverLimit(is.type, input[key], [...path, key], found, cuts)
      }
      return
    }
    case "TupleType": {
      if (!Array.isArray(input)) return
      input.forEach((item, i) => {
        const type = ast.elements[i]?.type ?? ast.rest[0]?.type
        if (type !== undefined && mayHoldLists(type)) listsOverLimit(type, item, [...path, i], found, cuts)
      })
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

/** Every field of an object that fails (unknown keys, missing fields, failing values), as `errors: "all"` lists them. */
const fields = (
  ast: AST.TypeLiteral,
  input: { readonly [key: string]: unknown },
  path: Path,
  found: Found,
  options: AST.ParseOptions
) => {
  if (options.onExcessProperty === "error") {
    const named = new Set<PropertyKey>(ast.propertySignatures.map((ps) => ps.name))
    const indexed = (key: string) =>
      ast.indexSignatures.some((is) => Either.isRight(decodeFirst(is.parameter, options)(key)))
    for (const key of ownKeys(input)) {
      if (found.full) return
      if (!named.has(key) && !indexed(key)) found.add([...path, key], "Unexpected", "is unexpected")
    }
  }
  for (const ps of ast.propertySignatures) {
    if (found.full) return
    const key = ps.name as string
    const decode = decodeFirst(ps.type, options)
    if (!Object.hasOwn(input, key)) {
      if (!ps.isOptional && Either.isLeft(decode(undefined))) found.add([...path, key], "Missing", "is missing")
      continue
    }
    const decoded = decode(input[key])
    if (Either.isLeft(decoded)) collect(decoded.left, input[key], [...path, key], found, options)
  }
  for (const is of ast.indexSignatures) {
    const decode = decodeFirst(is.type, options)
    for (const key of ownKeys(input)) {
      if (found.full) return
      if (Either.isLeft(decodeFirst(is.parameter, options)(key))) continue
      const decoded = decode(input[key])
      if (Either.isLeft(decoded)) collect(decoded.left, input[key], [...path, key], found, options)
    }
  }
}

/** Every failing item of a list. */
const items = (type: AST.AST, input: ReadonlyArray<unknown>, path: Path, found: Found, options: AST.ParseOptions) => {
  const decode = decodeFirst(type, options)
  for (let i = 0; i < input.length && !found.full; i++) {
    const decoded = decode(input[i])
    if (Either.isLeft(decoded)) collect(decoded.left, input[i], [...path, i], found, options)
  }
}

/**
 * The failures of `input` from `issue`, the first failure of decoding it: objects, lists and unions are
 * entered (each member of a union that failed), everything else is a leaf. Once the list is full, objects
 * and lists are left at once; a union's members are still visited for their leaves at its location.
 */
const collect = (
  issue: ParseResult.ParseIssue,
  input: unknown,
  path: Path,
  found: Found,
  inherited: AST.ParseOptions
): void => {
  switch (issue._tag) {
    case "Refinement": {
      const options = optionsAt(issue.ast, inherited)
      return issue.kind === "From" ? collect(issue.issue, input, path, found, options) : leaf(issue, path, found)
    }
    case "Transformation": {
      const options = optionsAt(issue.ast, inherited)
      return issue.kind === "Encoded" ? collect(issue.issue, input, path, found, options) : leaf(issue, path, found)
    }
    case "Composite": {
      const ast = issue.ast
      const options = optionsAt(ast, inherited)
      if (AST.isTypeLiteral(ast) && Predicate.isRecord(input)) return fields(ast, input, path, found, options)
      if (AST.isTupleType(ast) && Array.isArray(input) && ast.elements.length === 0 && ast.rest.length === 1) {
        return items(ast.rest[0]!.type, input, path, found, options)
      }
      if (AST.isUnion(ast)) {
        for (const member of listed(issue.issues)) {
          // The union's own search may report a made-up member (a missing tag): a leaf.
          if ("ast" in member && ast.types.includes(member.ast as AST.AST)) collect(member, input, path, found, options)
          else leaf(member, path, found)
        }
        return
      }
      return leaf(issue, path, found)
    }
    default:
      return leaf(issue, path, found)
  }
}

/**
 * A decoder of `schema` that fails with at most `maxIssues` + 1 failing locations (one more than an
 * answer lists, so that it can say more were found), as `PlainIssue`s under `root`. Unknown keys are
 * errors unless `onExcessProperty` is "ignore" (HttpApi's default for the parts of a request it decodes);
 * a schema's own parse options annotation decides below it either way.
 */
export const boundedDecoder = <A, I>(
  schema: Schema.Schema<A, I, never>,
  onExcessProperty: "error" | "ignore" = "error"
) => {
  const options: AST.ParseOptions = { onExcessProperty }
  const decode = decodeFirst(schema.ast, options) as (input: unknown) => Either.Either<A, ParseResult.ParseIssue>
  return (input: unknown, root = "$"): Either.Either<A, ReadonlyArray<PlainIssue>> => {
    const found = new Found()
    const cuts: Array<Cut> = []
    listsOverLimit(schema.ast, input, [], found, cuts)
    // In the order found, a list before the lists within its items.
    const bounded = cuts.reduce((value, cut) => replaceAt(value, cut.path, cut.list), input)
    const decoded = decode(bounded)
    if (Either.isRight(decoded)) {
      return cuts.length === 0 ? Either.right(decoded.right) : Either.left(plainIssuesOf(found.issues, root))
    }
    collect(decoded.left, bounded, [], found, options)
    if (found.issues.length === 0) leaf(decoded.left, [], found)
    return Either.left(plainIssuesOf(found.issues, root))
  }
}
