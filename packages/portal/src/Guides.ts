/**
 * The guides: the markdown files of docs/, which guides the portal shows and on which shelf, and where a
 * guide's relative links lead in the portal.
 */
import { type Shelf, shelves } from "./Shelves.js"
import { readdirSync, readFileSync } from "node:fs"
import { basename, join, posix } from "node:path"

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
