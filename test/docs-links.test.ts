/**
 * The docs hold together: every relative link and anchor of the README and docs/ resolves (anchors as
 * GitHub makes them), every guide is on a shelf and every shelf's guide exists, the portal's pages link
 * only to pages it has, and no page reads like a work log.
 */
import { Portal, PortalSearch, renderPortal, Shelves } from "@catalog-sync/portal"
import { describe, expect, it } from "@effect/vitest"
import { Marked, type Token, type Tokens } from "marked"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, posix } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const docs = join(root, "docs")
const pages = [
  "README.md",
  ...readdirSync(docs)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`)
]
const read = (path: string) => readFileSync(join(root, path), "utf8")
const lexer = new Marked({ gfm: true })

/** Every token of a page, nested ones included, in document order. */
const tokensOf = (markdown: string): ReadonlyArray<Token> => {
  const all: Array<Token> = []
  lexer.walkTokens(lexer.lexer(markdown), (token) => void all.push(token))
  return all
}

/** The anchors GitHub gives the headings of a markdown page. */
const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const slug = PortalSearch.headingSlugger()
  return new Set(
    tokensOf(markdown)
      .filter((token): token is Tokens.Heading => token.type === "heading")
      .map((heading) => slug(heading.text))
  )
}

/** `path:line href` of every link of a page whose target (or anchor) does not exist. */
const brokenLinks = (page: string, markdown = read(page)): ReadonlyArray<string> => {
  const lines = markdown.split("\n")
  const lineOf = (raw: string) => lines.findIndex((line) => line.includes(raw)) + 1
  return tokensOf(markdown)
    .filter((token): token is Tokens.Link | Tokens.Image => token.type === "link" || token.type === "image")
    .flatMap((link) => {
      const href = link.href
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return []
      const [path = "", anchor] = href.split("#")
      const target = path === "" ? page : posix.normalize(posix.join(posix.dirname(page), decodeURI(path)))
      const where = `${page}:${lineOf(link.raw)} ${href}`
      if (target.startsWith("../") || (target !== page && !existsSync(join(root, target))))
        return [`${where} (no ${target})`]
      if (anchor === undefined) return []
      if (!target.endsWith(".md") || statSync(join(root, target), { throwIfNoEntry: false })?.isDirectory() === true)
        return [`${where} (an anchor into ${target})`]
      const headings = anchorsOf(target === page ? markdown : read(target))
      return headings.has(anchor) ? [] : [`${where} (no heading #${anchor} in ${target})`]
    })
}

describe("the docs' links", () => {
  it("every relative link of the README and docs/ reaches a file, and every anchor a heading", () => {
    expect([...new Set(pages.flatMap((page) => brokenLinks(page)))]).toEqual([])
  })

  it("finds a missing file, a missing anchor and an anchor GitHub would not make (the check itself)", () => {
    const page = [
      "# Page",
      "## Where to go next",
      "[ok](../README.md#where-to-go-next) [self](#where-to-go-next) [repo](../packages/core) [web](https://effect.website)",
      "[gone](nowhere.md) [anchor](../README.md#where-to-go) [case](#Where-to-go-next)"
    ].join("\n")
    expect(brokenLinks("docs/page.md", page)).toEqual([
      "docs/page.md:4 nowhere.md (no docs/nowhere.md)",
      "docs/page.md:4 ../README.md#where-to-go (no heading #where-to-go in README.md)",
      "docs/page.md:4 #Where-to-go-next (no heading #Where-to-go-next in docs/page.md)"
    ])
  })
})

describe("the shelves of guides", () => {
  const files = readdirSync(docs)
    .filter((name) => name.endsWith(".md"))
    .map((name) => name.slice(0, -3))
  const listed = Shelves.shelves.flatMap((shelf) => shelf.guides)

  it("list every guide of docs/ once", () => {
    expect(files.filter((slug) => !listed.includes(slug))).toEqual([])
    expect(listed.filter((slug, index) => listed.indexOf(slug) !== index)).toEqual([])
  })

  it("list only guides that exist", () => {
    expect(listed.filter((slug) => !files.includes(slug))).toEqual([])
  })

  it("are what the portal shows: the first two shelves in order, the third named", () => {
    const guides = Portal.loadGuides(docs)
    const inPortal = Shelves.shelves.filter((shelf) => shelf.inPortal).flatMap((shelf) => shelf.guides)
    expect(guides.shown.map((guide) => guide.slug)).toEqual(inPortal.filter((slug) => files.includes(slug)))
    expect(guides.elsewhere.map((guide) => guide.slug)).toEqual(
      listed.filter((slug) => !inPortal.includes(slug) && files.includes(slug))
    )
  })
})

describe("the portal built from docs/", () => {
  const files = renderPortal(docs)
  const byPath = new Map(files.map((file) => [file.path, file.body]))

  it("has a page for every guide it lists, and its pages link only to pages and anchors it has", () => {
    const broken = files
      .filter((file) => file.path.endsWith(".html") && file.path !== "reference.html")
      .flatMap((file) =>
        [...file.body.matchAll(/<a href="([^"]*)"/g)].flatMap(([, href]) => {
          if (href === undefined || /^[a-z][a-z0-9+.-]*:/i.test(href)) return []
          const [path = "", anchor] = href.split("#")
          const target = path === "" ? file.path : posix.normalize(posix.join(posix.dirname(file.path), path))
          const body = byPath.get(target === "." ? "index.html" : target)
          // The packages' API reference (`npm run docs`) is served from docs/api beside the rendered pages.
          if (body === undefined && target.startsWith("api/") && existsSync(join(docs, target))) return []
          if (body === undefined) return [`${file.path}: ${href} (no page ${target})`]
          // Links into the reference name Scalar's anchors, made in the browser.
          if (anchor === undefined || target === "reference.html") return []
          return body.includes(`id="${anchor}"`) ? [] : [`${file.path}: ${href} (no #${anchor})`]
        })
      )
    expect(broken).toEqual([])
  })
})

describe("the docs read as a reference", () => {
  it("name no issue, work step or round, and keep performance.md and reliability.md within 350 lines", () => {
    const log = pages.flatMap((page) =>
      read(page)
        .split("\n")
        .flatMap((line, index) =>
          /\bissue #?\d+|\bthis (round|stop)\b|\b(stop|lever)s? \d+/i.test(line)
            ? [`${page}:${index + 1} ${line.trim()}`]
            : []
        )
    )
    expect(log).toEqual([])
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(130)
    for (const page of ["docs/performance.md", "docs/reliability.md"])
      expect(read(page).split("\n").length, page).toBeLessThanOrEqual(350)
  })
})
