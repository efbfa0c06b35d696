/**
 * The developer portal: static pages generated from the OpenAPI document and the guides in docs/. Nothing
 * here queries a database; the same pages are served by the server at /docs and written to a folder
 * for static hosting (`npm run portal`). The API reference is rendered in the browser by Scalar, the
 * bundle that effect ships inline for HttpApiScalar, so the portal works offline (no CDN). Its page shows
 * the endpoint table as HTML and loads Scalar (5 MB of JavaScript) on demand (./ReferencePage.ts).
 */
import { Marked } from "marked"
import { endpointTable } from "./EndpointTable.js"
import { type Guide, guideLink, type Guides } from "./Guides.js"
import { escapeHtml, layout, type PageAssets } from "./PageLayout.js"
import { css, searchScript } from "./PortalAssets.js"
import { headingSlugger, searchIndex } from "./PortalSearch.js"
import { type ApiDocument, documentForPortal } from "./ReferenceDocument.js"
import { referencePage, referenceScript } from "./ReferencePage.js"
import { createHash } from "node:crypto"

export { type Guide, guideLink, type Guides, loadGuides, repositoryUrl } from "./Guides.js"
export { documentForPortal, errorCodesByStatus, operationsOf, scopesOf } from "./ReferenceDocument.js"
export { scalarBundle } from "./ScalarBundle.js"

/** One file of the portal, by its path relative to the portal root. */
export interface PortalFile {
  readonly path: string
  readonly contentType: string
  readonly body: string
  /** Named for its content (`assets/<name>.<hash>.<ext>`): a new content gets a new path, so it may be cached for good. */
  readonly immutable?: boolean
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
  readonly spec: ApiDocument
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
  const endpoints = endpointTable(doc, (markdown) => marked.parseInline(markdown) as string)

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
${endpoints("reference.html")}`
  })

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
    {
      path: "reference.html",
      contentType: "text/html; charset=utf-8",
      body: referencePage({
        assets,
        endpoints: endpoints(""),
        script: reference.path,
        scalar: scalar.path,
        document: "openapi.json"
      })
    },
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
