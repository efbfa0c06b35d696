import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { guideLink, loadGuides, render, repositoryUrl } from "../src/Portal.js"
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

  it("shows the first two shelves in shelf order, then unlisted guides, and names the developers' guides", () =>
    withDocs(files, (docs) => {
      const guides = loadGuides(docs)
      expect(guides.shown.map((guide) => [guide.slug, guide.shelf])).toEqual([
        ["quickstart", "connecting"],
        ["errors", "connecting"],
        ["deploy", "operating"],
        ["notes", "more"]
      ])
      expect(guides.elsewhere).toEqual([{ slug: "architecture", title: "Architecture", url: undefined }])
    }))

  it("links the developers' guides to the repository named by the manifest beside docs/", () =>
    withDocs(
      files,
      (docs) => {
        expect(repositoryUrl(docs)).toBe("https://example.org/acme/catalog-sync")
        const guides = loadGuides(docs)
        expect(guides.elsewhere[0]?.url).toBe("https://example.org/acme/catalog-sync/blob/HEAD/docs/architecture.md")
        const out = render({ spec, guides, repository: repositoryUrl(docs), scalar: "" })
        const quickstart = page(out, "guides/quickstart.html")
        expect(quickstart).toContain('<a href="errors.html#codes">errors</a>')
        expect(quickstart).toContain('<a href="https://example.org/acme/catalog-sync/blob/HEAD/docs/architecture.md">')
        expect(quickstart).toContain('<a href="https://example.org/acme/catalog-sync/blob/HEAD/examples/embed">')
        expect(out.map((file) => file.path)).not.toContain("guides/architecture.html")
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
      expect(quickstart).toContain(", architecture and the example.")
      expect(quickstart).toContain("<code>docs/architecture.md</code>")
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
