/** The frame of every portal page: its head, the header with the search, and the guide list beside the content. */
import type { Guide, Guides } from "./Guides.js"
import { shelves } from "./Shelves.js"

export const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** The stylesheet, search script and search index every page loads, by their content-named paths. */
export interface PageAssets {
  readonly css: string
  readonly search: string
  readonly searchIndex: string
}

/** The header of every page, with the search over the reference and the guides. */
export const header = (root: string, assets: PageAssets) =>
  `<header class="top"><a class="brand" href="${root}index.html">Catalog Sync</a><a href="${root}reference.html">API reference</a><a href="${root}guides/quickstart.html">Quickstart</a><a href="${root}openapi.json">openapi.json</a>` +
  `<form class="search" role="search" data-root="${root}" data-index="${assets.searchIndex}"><input type="search" name="q" placeholder="Search endpoints, error codes, guides" aria-label="Search the reference and the guides" autocomplete="off"><ul class="results" hidden></ul></form></header>`

/** The head of every page: the stylesheet blocks the first paint (4 KB), the search script does not. */
export const head = (title: string, root: string, assets: PageAssets) => `<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Catalog Sync developer portal</title>
<link rel="stylesheet" href="${root}${assets.css}">
<script src="${root}${assets.search}" defer></script>`

const developing = shelves.find((shelf) => !shelf.inPortal)!

/** A page with the guide list: the home page and every guide. */
export const layout = (options: {
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
