/**
 * The portal's one search over the API reference and the guides: an index written at render time
 * (`assets/search-index.json`) that `assets/search.js` reads in the browser. Entries are guide sections
 * (by heading), error codes (the table of docs/errors.md) and operations (with the error codes their
 * examples show), each with the page and anchor to open.
 */
import { Predicate } from "effect"
import { Marked, type Token, type Tokens } from "marked"
import type { ApiDocument, ApiOperation } from "./ReferenceDocument.js"

export interface SearchEntry {
  /** What the result shows. */
  readonly title: string
  /** Where it leads, relative to the portal root. */
  readonly url: string
  readonly kind: "guide" | "error" | "operation"
  /** Plain text that is searched besides the title. */
  readonly text: string
}

/**
 * The anchor of a heading as GitHub makes it (github-slugger): its text lower case, punctuation and symbols
 * removed, each space a dash; the same on the rendered guide page, in the index and in the links test, so
 * that a link `guide.md#anchor` works on GitHub and in the portal alike.
 */
export const headingSlug = (text: string): string =>
  plain(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")

/** Anchors for the headings of one page, in order: a repeated one gets `-1`, `-2`, ... as on GitHub. */
export const headingSlugger = () => {
  const occurrences = new Map<string, number>()
  return (text: string): string => {
    const original = headingSlug(text)
    let slug = original
    while (occurrences.has(slug)) {
      const count = occurrences.get(original)! + 1
      occurrences.set(original, count)
      slug = `${original}-${count}`
    }
    occurrences.set(slug, 0)
    return slug
  }
}

/** Markdown inline syntax removed: code marks, emphasis, links (their text stays), table pipes. */
const plain = (markdown: string): string =>
  markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*|#>]/g, " ")
    .replace(/^\s*[-:]{3,}\s*$/gm, " ")
    .replace(/\s+/g, " ")
    .trim()

const lexer = new Marked({ gfm: true })

/** One entry per section of a guide (the text before the first `##` belongs to the title). */
export const guideEntries = (guide: {
  readonly slug: string
  readonly title: string
  readonly markdown: string
}): ReadonlyArray<SearchEntry> => {
  const entries: Array<SearchEntry> = []
  const slug = headingSlugger()
  let title = guide.title
  let anchor = ""
  let text: Array<string> = []
  const flush = () => {
    entries.push({ title, url: `guides/${guide.slug}.html${anchor}`, kind: "guide", text: plain(text.join(" ")) })
    text = []
  }
  for (const token of lexer.lexer(guide.markdown) as Array<Token>) {
    if (token.type === "heading") {
      const id = slug((token as Tokens.Heading).text)
      if ((token as Tokens.Heading).depth < 2) continue
      flush()
      title = `${guide.title} › ${plain((token as Tokens.Heading).text)}`
      anchor = `#${id}`
    } else {
      text.push(token.raw)
    }
  }
  flush()
  return entries.filter((entry) => entry.text !== "" || entry.url.includes("#"))
}

/** The rows of the error table of docs/errors.md: `| \`code\` | status | when | details |`. */
export const errorRows = (errorsMarkdown: string | undefined) =>
  [...(errorsMarkdown ?? "").matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|([^|\n]*)\|([^|\n]*)\|/gm)].map(
    ([, code, status, when, details]) => ({
      code: code!,
      status: status!,
      when: plain(when ?? ""),
      details: plain(details ?? "")
    })
  )

const methods = ["get", "post", "put", "patch", "delete"] as const

/** The value at `path` below `value`, through objects only (the examples are JSON nobody typed). */
const valueAt = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((node, key) => (Predicate.isObject(node) ? node[key] : undefined), value)

/** The error codes an operation's examples show, by status. */
const exampleCodes = (operation: ApiOperation): ReadonlyArray<string> =>
  Object.values(operation.responses ?? {}).flatMap((response) => {
    const examples = valueAt(response.content?.["application/json"], "examples")
    return (Predicate.isObject(examples) ? Object.values(examples) : [])
      .map((example) => valueAt(example, "value", "error", "code"))
      .filter(Predicate.isString)
  })

export const operationEntries = (spec: ApiDocument): ReadonlyArray<SearchEntry> =>
  Object.entries(spec.paths ?? {}).flatMap(([path, item]) =>
    methods.flatMap((method): ReadonlyArray<SearchEntry> => {
      const operation = item[method]
      if (operation === undefined) return []
      const tag = operation.tags?.[0] ?? ""
      const parameters = (operation.parameters ?? []).map((p) => p.name).join(" ")
      return [
        {
          title: `${method.toUpperCase()} ${path} · ${operation.summary ?? ""}`,
          url: `reference.html#tag/${encodeURIComponent(tag)}/${method}${path}`,
          kind: "operation",
          text: plain(`${operation.description ?? ""} ${parameters} ${[...new Set(exampleCodes(operation))].join(" ")}`)
        }
      ]
    })
  )

export const searchIndex = (
  spec: ApiDocument,
  guides: ReadonlyArray<{ readonly slug: string; readonly title: string; readonly markdown: string }>
): ReadonlyArray<SearchEntry> => {
  const errors = errorRows(guides.find((guide) => guide.slug === "errors")?.markdown).map((row): SearchEntry => ({
    title: `${row.code} · ${row.status}`,
    url: `guides/errors.html#${row.code}`,
    kind: "error",
    text: `${row.when} ${row.details}`
  }))
  return [...errors, ...operationEntries(spec), ...guides.flatMap(guideEntries)]
}
