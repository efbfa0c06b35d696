/**
 * The developer portal: static pages generated from the OpenAPI document and the guides in docs/. Nothing
 * here queries a database; the same pages are served by the server at /docs and written to a folder
 * for static hosting (`npm run portal`). The API reference is rendered in the browser by Scalar, the
 * bundle that effect ships inline for HttpApiScalar, so the portal works offline (no CDN). Its page shows
 * the endpoint table as HTML first and loads Scalar (5 MB of JavaScript) deferred, so that the reader
 * reads while it loads.
 */
import { Marked } from "marked"
import { css, referenceScript, searchScript } from "./PortalAssets.js"
import { headingSlugger, searchIndex } from "./PortalSearch.js"
import { type Shelf, shelves } from "./Shelves.js"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join, posix } from "node:path"

type Json = Record<string, any>

/** One file of the portal, by its path relative to the portal root. */
export interface PortalFile {
  readonly path: string
  readonly contentType: string
  readonly body: string
  /** Named for its content (`assets/<name>.<hash>.<ext>`): a new content gets a new path, so it may be cached for good. */
  readonly immutable?: boolean
}

/** A guide: a markdown file of docs/, on the shelf its slug is listed on (`more`: on none). */
export interface Guide {
  readonly slug: string
  readonly title: string
  readonly markdown: string
  readonly shelf: Shelf["id"] | "more"
}

/**
 * What the portal shows of docs/: the guides for users of the API (the shelves the portal shows, and
 * guides on no shelf), and the developers' guides, which get pages too but are listed apart, under
 * their own shelf, and stay out of the search.
 */
export interface Guides {
  readonly shown: ReadonlyArray<Guide>
  readonly elsewhere: ReadonlyArray<Guide>
}

const titleOf = (markdown: string, slug: string) => /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? slug

/**
 * The repository's web address from the `repository` field of the manifest beside docs/ (npm's forms:
 * `https://host/owner/name`, `git+https://host/owner/name.git`, `{ "url": ... }`), if it has one.
 */
export const repositoryUrl = (docsDir: string): string | undefined => {
  try {
    const manifest = JSON.parse(readFileSync(join(docsDir, "..", "package.json"), "utf8")) as {
      repository?: string | { url?: string }
    }
    const raw = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url
    const url = raw
      ?.replace(/^git\+/, "")
      .replace(/\.git$/, "")
      .replace(/^git@([^:]+):/, "https://$1/")
    return url !== undefined && /^https:\/\//.test(url) ? url : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads docs/*.md: the guides of the shelves the portal shows, in shelf order (guides on no shelf
 * follow, alphabetically), and the developers' guides, in their shelf's order. The title is the first
 * `# ` heading.
 */
export const loadGuides = (docsDir: string): Guides => {
  let names: Array<string>
  try {
    names = readdirSync(docsDir).filter((name) => name.endsWith(".md"))
  } catch {
    return { shown: [], elsewhere: [] }
  }
  const files = new Map(names.map((name) => [basename(name, ".md"), readFileSync(join(docsDir, name), "utf8")]))
  const guide = (slug: string, shelf: Guide["shelf"]): Guide => {
    const markdown = files.get(slug)!
    return { slug, title: titleOf(markdown, slug), markdown, shelf }
  }
  const listed = shelves.flatMap((shelf) => shelf.guides)
  const shown = [
    ...shelves
      .filter((shelf) => shelf.inPortal)
      .flatMap((shelf) => shelf.guides.filter((slug) => files.has(slug)).map((slug) => guide(slug, shelf.id))),
    ...[...files.keys()]
      .filter((slug) => !listed.includes(slug))
      .sort()
      .map((slug) => guide(slug, "more"))
  ]
  const elsewhere = shelves
    .filter((shelf) => !shelf.inPortal)
    .flatMap((shelf) => shelf.guides.filter((slug) => files.has(slug)).map((slug) => guide(slug, shelf.id)))
  return { shown, elsewhere }
}

/**
 * The Scalar API reference bundle (standalone, no network). Effect embeds it for its HttpApiScalar module
 * without exporting the string (nor the module: `effect/http-api/internal/*` is closed), so it is read
 * from that module's file beside `effect/http-api`: one string literal, which is valid JSON.
 */
export const scalarBundle = (): string => {
  const require = createRequire(import.meta.url)
  const entry = require.resolve("effect/http-api")
  const source = readFileSync(join(dirname(entry), "internal", "httpApiScalar.js"), "utf8")
  const literal = /export const javascript\s*=\s*("(?:[^"\\]|\\.)*")/.exec(source)?.[1]
  const bundle: unknown = literal === undefined ? undefined : JSON.parse(literal)
  if (typeof bundle !== "string")
    throw new Error("the Scalar bundle of effect/http-api was not found; check its version")
  return bundle
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c")

/** The scopes an operation needs (spec 4.2-4.3, and the decisions in docs/spec-gaps.md). */
export const scopesOf = (method: string, path: string): string => {
  const p = path.replace(/^\/api\/v1/, "")
  const m = method.toUpperCase()
  if (p === "/me") return "Any valid key."
  if (p === "/health" || p === "/ready" || p.endsWith("openapi.json")) return "None (no key)."
  if (p.startsWith("/changes"))
    return "The read scope of each changed part: `catalog:read`, `prices:read`, `costs:read`, `stock:read`, `media:read`; a key with none of them gets 403."
  if (p.startsWith("/inventory"))
    return m === "GET"
      ? "`stock:read`; the company needs the stock package and inventory module."
      : "`stock:write`; the location must be assigned to the connection as writable."
  if (p.startsWith("/media")) return m === "GET" ? "`media:read`" : "`media:write`"
  if (p.startsWith("/imports") || p.startsWith("/jobs")) {
    if (m === "GET") return "Any valid key; only the connection's own jobs are visible."
    return "The write scopes of every record (retry: the same scopes, from an active key of the same connection)."
  }
  if (m === "GET") {
    return p.includes("{id}")
      ? "`catalog:read`. Price fields appear only with `prices:read`, cost with `costs:read`."
      : "`catalog:read`; with `mode=prices`, `prices:read` (a price-only key uses this)."
  }
  if (m === "DELETE") return "`catalog:write`"
  if (p.endsWith("/upsert")) {
    return "`mode: catalog` (default): `catalog:write`. `mode: prices`: `prices:write`. `mode: combined`: `catalog:write` for catalog fields and every create, `prices:write` for price fields. `cost` needs `costs:write`; an explicit selection-field `coefficient` needs `prices:write`."
  }
  return "See the description."
}

/** `status -> codes`, from the table in docs/errors.md. */
export const errorCodesByStatus = (errorsMarkdown: string | undefined): ReadonlyMap<string, ReadonlyArray<string>> => {
  const byStatus = new Map<string, Array<string>>()
  for (const match of (errorsMarkdown ?? "").matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)) {
    const [, code, status] = match
    if (code === undefined || status === undefined) continue
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return byStatus
}

const methods = ["get", "post", "put", "patch", "delete"]

/** Every operation of the document: method, path, summary, tag. */
export const operationsOf = (spec: Json) =>
  Object.entries<Json>(spec.paths ?? {}).flatMap(([path, item]) =>
    methods
      .filter((method) => item[method] !== undefined)
      .map((method) => ({
        method: method.toUpperCase(),
        path,
        summary: String(item[method].summary ?? ""),
        tag: String(item[method].tags?.[0] ?? "")
      }))
  )

/**
 * The document the portal shows: the API's own, with each operation's scopes and each error response's
 * codes written into the descriptions (renderers show descriptions; they ignore extensions), and the
 * guides linked from the introduction.
 */
export const documentForPortal = (spec: Json, guides: ReadonlyArray<Guide>): Json => {
  const doc = structuredClone(spec)
  const codes = errorCodesByStatus(guides.find((guide) => guide.slug === "errors")?.markdown)
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method] as Json | undefined
      if (operation === undefined) continue
      const scopes = `**Scopes:** ${scopesOf(method, path)}`
      operation.description = operation.description ? `${operation.description}\n\n${scopes}` : scopes
      operation["x-scopes"] = scopesOf(method, path)
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const list = codes.get(status)
        if (list === undefined || list.length === 0) continue
        response.description =
          `${response.description ?? ""} Codes: ${list.map((code) => `\`${code}\``).join(", ")}.`.trim()
      }
    }
  }
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      for (const parameter of operation?.parameters ?? []) {
        if (parameter.in !== "header" || parameter.name !== "idempotency-key") continue
        parameter.description = `${parameter.description} Test Request sends a fresh key when this one is left as it is.`
      }
    }
  }
  const links = guides.map((guide) => `[${guide.title}](guides/${guide.slug}.html)`).join(" · ")
  doc.info = {
    ...doc.info,
    description: `${doc.info?.description ?? ""}\n\n**Guides:** ${links}\n\n[Portal home](index.html) · [openapi.json](openapi.json)`
  }
  return doc
}

/** The stylesheet, search script and search index every page loads, by their content-named paths. */
interface PageAssets {
  readonly css: string
  readonly search: string
  readonly searchIndex: string
}

/** The header of every page, with the search over the reference and the guides. */
const header = (root: string, assets: PageAssets) =>
  `<header class="top"><a class="brand" href="${root}index.html">Catalog Sync</a><a href="${root}reference.html">API reference</a><a href="${root}guides/quickstart.html">Quickstart</a><a href="${root}openapi.json">openapi.json</a>` +
  `<form class="search" role="search" data-root="${root}" data-index="${assets.searchIndex}"><input type="search" name="q" placeholder="Search endpoints, error codes, guides" aria-label="Search the reference and the guides" autocomplete="off"><ul class="results" hidden></ul></form></header>`

/** The head of every page: the stylesheet blocks the first paint (4 KB), the search script does not. */
const head = (title: string, root: string, assets: PageAssets) => `<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Catalog Sync developer portal</title>
<link rel="stylesheet" href="${root}${assets.css}">
<script src="${root}${assets.search}" defer></script>`

const developing = shelves.find((shelf) => !shelf.inPortal)!

const layout = (options: {
  readonly title: string
  readonly root: string
  readonly assets: PageAssets
  readonly guides: Guides
  /** Whether the packages' API reference (`npm run docs`) is at `api/index.html`. */
  readonly apiReference: boolean
  readonly current?: string
  readonly body: string
}) => {
  const link = (guide: Guide) =>
    `<li><a href="${options.root}guides/${guide.slug}.html"${guide.slug === options.current ? ' aria-current="page"' : ""}>${escapeHtml(guide.title)}</a></li>`
  const shelfList = (title: string, guides: ReadonlyArray<Guide>) =>
    guides.length === 0 ? "" : `<h2>${escapeHtml(title)}</h2><ul>\n${guides.map(link).join("\n")}\n</ul>`
  const apiReference = options.apiReference
    ? `<li><a href="${options.root}api/index.html">Packages' API reference</a></li>`
    : `<li>Packages' API reference: <code>npm run docs</code> builds it</li>`
  const nav = [
    ...shelves
      .filter((shelf) => shelf.inPortal)
      .map((shelf) =>
        shelfList(
          shelf.title,
          options.guides.shown.filter((guide) => guide.shelf === shelf.id)
        )
      ),
    shelfList(
      "More guides",
      options.guides.shown.filter((guide) => guide.shelf === "more")
    ),
    `<h2>${escapeHtml(developing.title)}</h2><p class="elsewhere">For ${escapeHtml(developing.readers)}:</p><ul>\n${[...options.guides.elsewhere.map(link), apiReference].join("\n")}\n</ul>`
  ]
    .filter((part) => part !== "")
    .join("\n")
  return `<!doctype html>
<html lang="en">
<head>
${head(options.title, options.root, options.assets)}
</head>
<body>
${header(options.root, options.assets)}
<div class="layout">
<nav class="guides" aria-label="Guides">
${nav}
</nav>
<main>
${options.body}
</main>
</div>
</body>
</html>
`
}

/** Rows of the error table whose first cell is a code get that code as anchor (`errors.html#not_found`). */
const anchorErrorRows = (html: string) => {
  const seen = new Set<string>()
  return html.replace(/<tr>(\s*<td><code>([a-z_]+)<\/code><\/td>)/g, (row, cell: string, code: string) => {
    if (seen.has(code)) return row
    seen.add(code)
    return `<tr id="${code}">${cell}`
  })
}

/**
 * Where a relative link of a guide leads in the portal: another guide's page (`errors.md`,
 * `./setup.md#scopes`), or the file in the repository's web view (`../examples/embed`); `undefined` when
 * the repository has no address, so that the link's text stays without a dead link.
 */
export const guideLink =
  (shown: ReadonlySet<string>, repository: string | undefined) =>
  (href: string): string | undefined => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href
    const match = /^(?:\.\/)?([a-z0-9-]+)\.md(#.*)?$/i.exec(href)
    if (match !== null && shown.has(match[1]!)) return `${match[1]}.html${match[2] ?? ""}`
    if (repository === undefined) return undefined
    const path = posix.normalize(posix.join("docs", href))
    return path.startsWith("../") ? undefined : `${repository}/blob/HEAD/${path}`
  }

/** Scopes texts that several rows of the endpoint table share and that are long: shown once, as notes. */
const scopeNotes = (texts: ReadonlyArray<string>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1)
  const notes = new Map<string, number>()
  for (const [text, count] of counts) if (count > 1 && text.length > 120) notes.set(text, notes.size + 1)
  return notes
}

/** The API's description with its mentions of shown guides (`docs/errors.md`) linked. */
const describeApi = (description: string, shown: ReadonlySet<string>) =>
  escapeHtml(description).replace(/docs\/([a-z0-9-]+)\.md/g, (mention, slug: string) =>
    shown.has(slug) ? `<a href="guides/${slug}.html">${mention}</a>` : mention
  )

/** The first 12 hex digits of the SHA-256 of a file's content: its name changes when its content does. */
export const contentHash = (body: string): string => createHash("sha256").update(body).digest("hex").slice(0, 12)

const asset = (name: string, extension: string, contentType: string, body: string): PortalFile => ({
  path: `assets/${name}.${contentHash(body)}.${extension}`,
  contentType,
  body,
  immutable: true
})

/** Renders the whole portal. */
export const render = (options: {
  readonly spec: Json
  readonly guides: Guides
  /** The repository's web address, for links to files the portal does not hold. */
  readonly repository?: string | undefined
  readonly scalar: string
  /** Whether the packages' API reference (`npm run docs`) is served beside the portal, at `api/`. */
  readonly apiReference?: boolean
}): ReadonlyArray<PortalFile> => {
  const { guides } = options
  const shownGuides = guides.shown
  const doc = documentForPortal(options.spec, shownGuides)
  const shown = new Set(shownGuides.map((guide) => guide.slug))
  const rewrite = guideLink(new Set([...shown, ...guides.elsewhere.map((guide) => guide.slug)]), options.repository)
  let slug = headingSlugger()
  const marked = new Marked({
    gfm: true,
    walkTokens: (token) => void (token.type === "link" ? (token.href = rewrite(token.href) ?? "") : undefined),
    renderer: {
      // Headings get the anchors GitHub gives them, which the guides' links and the search index use.
      heading({ tokens, depth, text }) {
        return `<h${depth} id="${slug(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`
      },
      // A link with nowhere to go in the portal keeps its text.
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens)
        if (href === "") return text
        return `<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ""}>${text}</a>`
      }
    }
  })

  const styles = asset("portal", "css", "text/css; charset=utf-8", css)
  const search = asset("search", "js", "text/javascript; charset=utf-8", searchScript)
  const index = asset("search-index", "json", "application/json", JSON.stringify(searchIndex(doc, shownGuides)))
  const reference = asset("reference", "js", "text/javascript; charset=utf-8", referenceScript)
  const scalar = asset("scalar", "js", "text/javascript; charset=utf-8", options.scalar)
  const assets: PageAssets = { css: styles.path, search: search.path, searchIndex: index.path }
  const apiReference = options.apiReference ?? false

  const operations = operationsOf(doc).map((op) => ({ ...op, scopes: scopesOf(op.method, op.path) }))
  const notes = scopeNotes(operations.map((op) => op.scopes))
  /** Every endpoint, linked to its section of the reference at `referencePage` (`""`: this page). */
  const endpointTable = (referencePage: string) => {
    const rows = operations
      .map((op) => {
        const note = notes.get(op.scopes)
        const scopes =
          note === undefined
            ? (marked.parseInline(op.scopes) as string)
            : `See <a href="#scopes-${note}">scopes note ${note}</a>.`
        return `<tr><td class="method">${op.method}</td><td><a href="${referencePage}#tag/${encodeURIComponent(op.tag)}/${op.method.toLowerCase()}${escapeHtml(op.path)}"><code class="endpoint-path">${escapeHtml(op.path)}</code></a></td><td>${escapeHtml(op.summary)}</td><td>${scopes}</td></tr>`
      })
      .join("\n")
    const noteList = [...notes]
      .map(
        ([text, note]) =>
          `<p id="scopes-${note}"><strong>Scopes note ${note}.</strong> ${marked.parseInline(text) as string}</p>`
      )
      .join("\n")
    return `<table id="endpoints"><thead><tr><th>method</th><th>path</th><th>what</th><th>scopes</th></tr></thead><tbody>
${rows}
</tbody></table>
${noteList}`
  }
  const home = layout({
    title: "Home",
    root: "",
    assets,
    guides,
    apiReference,
    body: `<h1>${escapeHtml(String(doc.info?.title ?? "API"))} <small>v${escapeHtml(String(doc.info?.version ?? ""))}</small></h1>
<p>${describeApi(String(options.spec.info?.description ?? ""), shown)}</p>
<p><a href="reference.html">Open the API reference</a> (every endpoint with its parameters, bodies, responses, error codes and examples) or start with the <a href="guides/quickstart.html">quickstart</a>.</p>
<h2>Endpoints</h2>
${endpointTable("reference.html")}`
  })

  // The endpoint table is the page's first content; Scalar replaces it once its bundle has run, which
  // reference.js starts after the table has been painted.
  const referencePage = `<!doctype html>
<html lang="en">
<head>
${head("API reference", "", assets)}
<link rel="preload" href="${scalar.path}" as="script">
</head>
<body class="reference">
${header("", assets)}
<div id="reference"><main class="static-reference" data-static-reference>
<h1>API reference</h1>
<p role="status">The interactive reference (parameters, bodies, responses, examples and Test Request) is loading.</p>
${endpointTable("")}
</main></div>
<script id="openapi-document" type="application/json">${scriptJson(doc)}</script>
<script src="${reference.path}" data-scalar="${scalar.path}" defer></script>
</body>
</html>
`

  const guidePage = (guide: Guide) => {
    slug = headingSlugger()
    return {
      path: `guides/${guide.slug}.html`,
      contentType: "text/html; charset=utf-8",
      body: layout({
        title: guide.title,
        root: "../",
        assets,
        guides,
        apiReference,
        current: guide.slug,
        body: anchorErrorRows(marked.parse(guide.markdown) as string)
      })
    }
  }

  return [
    { path: "index.html", contentType: "text/html; charset=utf-8", body: home },
    { path: "reference.html", contentType: "text/html; charset=utf-8", body: referencePage },
    { path: "openapi.json", contentType: "application/json", body: JSON.stringify(doc, null, 2) },
    styles,
    search,
    index,
    reference,
    scalar,
    ...shownGuides.map(guidePage),
    ...guides.elsewhere.map(guidePage)
  ]
}
