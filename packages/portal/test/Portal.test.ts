import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { contentHash, guideLink, loadGuides, render, repositoryUrl } from "../src/Portal.js"
import { headingSlug, headingSlugger } from "../src/PortalSearch.js"

/** A docs/ folder (with the manifest beside it) holding these guides, removed after `f`. */
const withDocs = <A>(files: Record<string, string>, f: (docs: string) => A, manifest?: object): A => {
  const root = mkdtempSync(join(tmpdir(), "portal-docs-"))
  try {
    const docs = join(root, "docs")
    mkdirSync(docs)
    for (const [name, text] of Object.entries(files)) writeFileSync(join(docs, name), text)
    if (manifest !== undefined) writeFileSync(join(root, "package.json"), JSON.stringify(manifest))
    return f(docs)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const spec = {
  openapi: "3.1.0",
  info: { title: "Catalog Sync API", version: "1", description: "Codes are listed in docs/errors.md." },
  paths: {
    "/api/v1/categories/upsert": { post: { summary: "Upsert a category", tags: ["categories"] } },
    "/api/v1/products/upsert": { post: { summary: "Upsert a product", tags: ["products"] } },
    "/api/v1/products/{id}": { get: { summary: "Read a product", tags: ["products"] } }
  }
}

const page = (files: ReadonlyArray<{ path: string; body: string }>, path: string) =>
  files.find((file) => file.path === path)?.body ?? ""

describe("heading anchors", () => {
  it("are GitHub's: lower case, punctuation dropped, spaces to dashes, repeats numbered", () => {
    expect(headingSlug("Change feed (GET /changes)")).toBe("change-feed-get-changes")
    expect(headingSlug("`followChanges` options")).toBe("followchanges-options")
    expect(headingSlug("Imports and jobs (POST /imports, /imports, /jobs)")).toBe(
      "imports-and-jobs-post-imports-imports-jobs"
    )
    expect(headingSlug("Failures and `--retry-failed`")).toBe("failures-and---retry-failed")
    expect(headingSlug("SQLite: one instance")).toBe("sqlite-one-instance")
    expect(headingSlug("Größe & Übersicht")).toBe("größe--übersicht")
    const slug = headingSlugger()
    expect(["Figures", "Method", "Figures", "Figures", "Figures 1"].map(slug)).toEqual([
      "figures",
      "method",
      "figures-1",
      "figures-2",
      "figures-1-1"
    ])
  })
})

describe("the portal's guides", () => {
  const files = {
    "errors.md": "# Error codes\n\n| code | status |\n|---|---|\n| `not_found` | 404 |\n",
    "quickstart.md":
      "# Quickstart\n\nSee [errors](errors.md#codes), [architecture](architecture.md) and [the example](../examples/embed).\n",
    "deploy.md": "# Deploying\n",
    "architecture.md": "# Architecture\n",
    "notes.md": "# Notes\n"
  }

  it("shows the first two shelves in shelf order, then unlisted guides, and the developers' guides apart", () =>
    withDocs(files, (docs) => {
      const guides = loadGuides(docs)
      expect(guides.shown.map((guide) => [guide.slug, guide.shelf])).toEqual([
        ["quickstart", "connecting"],
        ["errors", "connecting"],
        ["deploy", "operating"],
        ["notes", "more"]
      ])
      expect(guides.elsewhere.map((guide) => [guide.slug, guide.title, guide.shelf])).toEqual([
        ["architecture", "Architecture", "developing"]
      ])
    }))

  it("lists the developers' guides as links to their pages, and links files outside docs/ to the repository named by the manifest", () =>
    withDocs(
      files,
      (docs) => {
        expect(repositoryUrl(docs)).toBe("https://example.org/acme/catalog-sync")
        const guides = loadGuides(docs)
        const out = render({ spec, guides, repository: repositoryUrl(docs), scalar: "" })
        const quickstart = page(out, "guides/quickstart.html")
        expect(quickstart).toContain('<a href="errors.html#codes">errors</a>')
        expect(quickstart).toContain('<a href="architecture.html">architecture</a>')
        expect(quickstart).toContain('<a href="https://example.org/acme/catalog-sync/blob/HEAD/examples/embed">')
        expect(page(out, "guides/architecture.html")).toContain('<h1 id="architecture">Architecture</h1>')
        // Listed under their own shelf, after the guides for users of the API.
        const nav = /<nav class="guides"[^>]*>([\s\S]*?)<\/nav>/.exec(page(out, "index.html"))![1]!
        expect(nav.indexOf('<a href="guides/architecture.html">Architecture</a>')).toBeGreaterThan(
          nav.indexOf("Developing Catalog Sync")
        )
        expect(nav.indexOf("Developing Catalog Sync")).toBeGreaterThan(nav.indexOf('href="guides/deploy.html"'))
        // The search serves readers of the API: the developers' guides stay out of it.
        const index = out.find((file) => /^assets\/search-index\.[0-9a-f]{12}\.json$/.test(file.path))!
        expect(index.body).not.toContain("guides/architecture.html")
      },
      { repository: { type: "git", url: "git+https://example.org/acme/catalog-sync.git" } }
    ))

  it("keeps the text of a link that has nowhere to go in the portal", () => {
    const link = guideLink(new Set(["errors"]), undefined)
    expect(link("errors.md#not_found")).toBe("errors.html#not_found")
    expect(link("./errors.md")).toBe("errors.html")
    expect(link("https://effect.website")).toBe("https://effect.website")
    expect(link("#writes")).toBe("#writes")
    expect(link("architecture.md")).toBeUndefined()
    withDocs(files, (docs) => {
      const quickstart = page(render({ spec, guides: loadGuides(docs), scalar: "" }), "guides/quickstart.html")
      expect(quickstart).toContain('<a href="architecture.html">architecture</a> and the example.')
    })
  })

  it("links docs/errors.md from the home page and states a long scopes text once, as a note", () =>
    withDocs(files, (docs) => {
      const home = page(render({ spec, guides: loadGuides(docs), scalar: "" }), "index.html")
      expect(home).toContain('<a href="guides/errors.html">docs/errors.md</a>')
      expect(home.split("mode: catalog").length - 1).toBe(1)
      expect(home).toContain('See <a href="#scopes-1">scopes note 1</a>.')
      expect(home.match(/See <a href="#scopes-1">/g)).toHaveLength(2)
      expect(home).toContain('<p id="scopes-1"><strong>Scopes note 1.</strong>')
    }))
})

describe("the reference page", () => {
  const out = withDocs({ "errors.md": "# Error codes\n" }, (docs) =>
    render({ spec, guides: loadGuides(docs), scalar: "/* scalar */" })
  )
  const reference = page(out, "reference.html")

  it("names each asset for its content, so that it may be cached for good", () => {
    const assets = out.filter((file) => file.path.startsWith("assets/"))
    expect(assets.map((file) => file.path.replace(/\.[0-9a-f]{12}\./, ".*."))).toEqual([
      "assets/portal.*.css",
      "assets/search.*.js",
      "assets/search-index.*.json",
      "assets/reference.*.js",
      "assets/scalar.*.js"
    ])
    for (const file of assets) {
      expect(file.immutable).toBe(true)
      expect(file.path).toContain(`.${contentHash(file.body)}.`)
    }
    expect(out.filter((file) => file.immutable === true)).toEqual(assets)
    const other = render({ spec, guides: { shown: [], elsewhere: [] }, scalar: "/* another scalar */" })
    expect(other.find((file) => file.path.startsWith("assets/scalar."))?.path).not.toBe(
      assets.find((file) => file.path.startsWith("assets/scalar."))?.path
    )
    // Every page names the assets of its version.
    for (const file of assets)
      expect(reference.includes(file.path) || page(out, "index.html").includes(file.path)).toBe(true)
  })

  it("shows the endpoint table and a button for the interactive reference, which reference.js loads on demand", () => {
    const table = reference.indexOf('<table id="endpoints">')
    expect(table).toBeGreaterThan(reference.indexOf('<div id="reference"><main class="static-reference"'))
    expect(reference).toContain('<a href="#tag/products/get/api/v1/products/{id}"><code class="endpoint-path">')
    expect(reference).toContain(
      '<button type="button" class="interactive" data-load-interactive-reference hidden>Open the interactive reference</button>'
    )
    const hashed = (path: string) => path.replace(/\.[0-9a-f]{12}\./, ".*.")
    const scripts = [...reference.matchAll(/<script src="([^"]+)"([^>]*)><\/script>/g)]
    expect(scripts.map(([, src, rest]) => [hashed(src!), hashed(rest!)])).toEqual([
      ["assets/search.*.js", " defer"],
      ["assets/reference.*.js", ' data-scalar="assets/scalar.*.js" data-document="openapi.json" defer']
    ])
    expect(reference.indexOf('<script src="assets/reference.')).toBeGreaterThan(table)
    // Neither the bundle nor the document comes with the page: nothing preloads them, nothing embeds them.
    expect(reference).not.toContain("preload")
    expect(reference).not.toContain("application/json")
    expect(reference.length).toBeLessThan(20_000)
  })

  it("links the packages' API reference when it is built, and says how to build it when not", () => {
    expect(page(out, "index.html")).toContain("<li>Packages' API reference: <code>npm run docs</code> builds it</li>")
    const built = render({ spec, guides: { shown: [], elsewhere: [] }, scalar: "", apiReference: true })
    expect(page(built, "index.html")).toContain('<li><a href="api/index.html">Packages\' API reference</a></li>')
  })
})
