/**
 * The developer portal: static pages generated from the OpenAPI document and the guides in docs/. Nothing
 * here queries a database; the same pages are served by the server at /docs and written to a folder
 * for static hosting (`npm run portal`). The API reference is rendered in the browser by Scalar, the
 * bundle that @effect/platform ships inline for HttpApiScalar, so the portal works offline (no CDN).
 */
import { Marked } from "marked"
import { css, referenceScript, searchScript } from "./PortalAssets.js"
import { headingSlug, searchIndex } from "./PortalSearch.js"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"

type Json = Record<string, any>

/** One file of the portal, by its path relative to the portal root. */
export interface PortalFile {
  readonly path: string
  readonly contentType: string
  readonly body: string
}

/** A guide: a markdown file of docs/. */
export interface Guide {
  readonly slug: string
  readonly title: string
  readonly markdown: string
}

/** Guides in reading order; any other docs/*.md follows alphabetically, so new guides appear by themselves. */
export const guideOrder = [
  "quickstart",
  "setup",
  "identity-and-revisions",
  "modes-and-scopes",
  "idempotency-and-retries",
  "sync-flow",
  "client",
  "bulk-load",
  "imports-and-jobs",
  "imports",
  "jobs",
  "media",
  "inventory",
  "limits",
  "errors",
  "deploy",
  "deployment",
  "embedding",
  "architecture",
  "spec-gaps",
  "performance"
]

/** Reads every docs/*.md; the title is the first `# ` heading. */
export const loadGuides = (docsDir: string): ReadonlyArray<Guide> => {
  let names: Array<string>
  try {
    names = readdirSync(docsDir).filter((name) => name.endsWith(".md"))
  } catch {
    return []
  }
  const rank = (slug: string) => {
    const index = guideOrder.indexOf(slug)
    return index === -1 ? guideOrder.length : index
  }
  return names
    .map((name) => {
      const markdown = readFileSync(join(docsDir, name), "utf8")
      const slug = basename(name, ".md")
      const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? slug
      return { slug, title, markdown }
    })
    .sort((a, b) => rank(a.slug) - rank(b.slug) || a.slug.localeCompare(b.slug))
}

/**
 * The Scalar API reference bundle (standalone, no network). @effect/platform embeds it for its
 * HttpApiScalar module without exporting the string, so it is read from that module's sibling file.
 */
export const scalarBundle = (): string => {
  const require = createRequire(import.meta.url)
  const entry = require.resolve("@effect/platform/HttpApiScalar")
  const bundle = require(join(dirname(entry), "internal", "httpApiScalar.js")) as { javascript?: unknown }
  if (typeof bundle.javascript !== "string")
    throw new Error("the Scalar bundle of @effect/platform was not found; check its version")
  return bundle.javascript
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
  const doc = structuredClone(spec) as Json
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

/** The header of every page, with the search over the reference and the guides. */
const header = (root: string) =>
  `<header class="top"><a class="brand" href="${root}index.html">Catalog Sync</a><a href="${root}reference.html">API reference</a><a href="${root}guides/quickstart.html">Quickstart</a><a href="${root}openapi.json">openapi.json</a>` +
  `<form class="search" role="search" data-root="${root}"><input type="search" name="q" placeholder="Search endpoints, error codes, guides" aria-label="Search the reference and the guides" autocomplete="off"><ul class="results" hidden></ul></form></header>`

const layout = (options: {
  readonly title: string
  readonly root: string
  readonly guides: ReadonlyArray<Guide>
  readonly current?: string
  readonly body: string
}) => {
  const nav = options.guides
    .map(
      (guide) =>
        `<li><a href="${options.root}guides/${guide.slug}.html"${guide.slug === options.current ? ' aria-current="page"' : ""}>${escapeHtml(guide.title)}</a></li>`
    )
    .join("\n")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(options.title)} · Catalog Sync developer portal</title>
<link rel="stylesheet" href="${options.root}assets/portal.css">
<script src="${options.root}assets/search.js" defer></script>
</head>
<body>
${header(options.root)}
<div class="layout">
<nav class="guides" aria-label="Guides"><h2>Guides</h2><ul>
${nav}
</ul></nav>
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

/** Rewrites links between guides (`errors.md`, `./setup.md#writes`) to the generated pages. */
const guideLinks = (slugs: ReadonlySet<string>) => (href: string) => {
  const match = /^(?:\.\/)?([a-z0-9-]+)\.md(#.*)?$/i.exec(href)
  if (match !== null && slugs.has(match[1]!)) return `${match[1]}.html${match[2] ?? ""}`
  return href
}

/** Renders the whole portal. */
export const render = (options: {
  readonly spec: Json
  readonly guides: ReadonlyArray<Guide>
  readonly scalar: string
}): ReadonlyArray<PortalFile> => {
  const { guides } = options
  const doc = documentForPortal(options.spec, guides)
  const slugs = new Set(guides.map((guide) => guide.slug))
  const rewrite = guideLinks(slugs)
  const marked = new Marked({
    gfm: true,
    walkTokens: (token) => void (token.type === "link" ? (token.href = rewrite(token.href)) : undefined),
    // Headings get the anchors the search index links to.
    renderer: {
      heading({ tokens, depth, text }) {
        return `<h${depth} id="${headingSlug(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`
      }
    }
  })

  const rows = operationsOf(doc)
    .map(
      (op) =>
        `<tr><td class="method">${op.method}</td><td><a href="reference.html#tag/${encodeURIComponent(op.tag)}/${op.method.toLowerCase()}${escapeHtml(op.path)}"><code class="endpoint-path">${escapeHtml(op.path)}</code></a></td><td>${escapeHtml(op.summary)}</td><td>${marked.parseInline(scopesOf(op.method, op.path)) as string}</td></tr>`
    )
    .join("\n")
  const index = layout({
    title: "Home",
    root: "",
    guides,
    body: `<h1>${escapeHtml(String(doc.info?.title ?? "API"))} <small>v${escapeHtml(String(doc.info?.version ?? ""))}</small></h1>
<p>${escapeHtml(String(options.spec.info?.description ?? ""))}</p>
<p><a href="reference.html">Open the API reference</a> (every endpoint with its parameters, bodies, responses, error codes and examples) or start with the <a href="guides/quickstart.html">quickstart</a>.</p>
<h2>Endpoints</h2>
<table id="endpoints"><thead><tr><th>method</th><th>path</th><th>what</th><th>scopes</th></tr></thead><tbody>
${rows}
</tbody></table>`
  })

  const reference = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>API reference · Catalog Sync developer portal</title>
<link rel="stylesheet" href="assets/portal.css">
<script src="assets/search.js" defer></script>
</head>
<body class="reference">
${header("")}
<div id="reference"></div>
<script id="openapi-document" type="application/json">${scriptJson(doc)}</script>
<script src="assets/scalar.js"></script>
<script src="assets/reference.js"></script>
</body>
</html>
`

  const guidePages = guides.map((guide) => ({
    path: `guides/${guide.slug}.html`,
    contentType: "text/html; charset=utf-8",
    body: layout({
      title: guide.title,
      root: "../",
      guides,
      current: guide.slug,
      body: anchorErrorRows(marked.parse(guide.markdown) as string)
    })
  }))

  return [
    { path: "index.html", contentType: "text/html; charset=utf-8", body: index },
    { path: "reference.html", contentType: "text/html; charset=utf-8", body: reference },
    { path: "openapi.json", contentType: "application/json", body: JSON.stringify(doc, null, 2) },
    { path: "assets/portal.css", contentType: "text/css; charset=utf-8", body: css },
    { path: "assets/search.js", contentType: "text/javascript; charset=utf-8", body: searchScript },
    {
      path: "assets/search-index.json",
      contentType: "application/json",
      body: JSON.stringify(searchIndex(doc, guides))
    },
    { path: "assets/reference.js", contentType: "text/javascript; charset=utf-8", body: referenceScript },
    { path: "assets/scalar.js", contentType: "text/javascript; charset=utf-8", body: options.scalar },
    ...guidePages
  ]
}
