/**
 * The guides of docs/, on three shelves by who reads them. The portal shows the first two, in this order,
 * for users of the API, and searches them; the third, for developers, comes last, its own shelf, out of
 * the search. `test/docs-links.test.ts` holds this list to the files (every listed guide exists, every
 * guide is listed).
 */

export interface Shelf {
  readonly id: "connecting" | "operating" | "developing"
  readonly title: string
  /** Who the shelf is for, in a few words. */
  readonly readers: string
  /** The guides (file names in docs/ without `.md`), in reading order. */
  readonly guides: ReadonlyArray<string>
  /** Whether the guides are for users of the API: listed first and searched (else listed last, apart). */
  readonly inPortal: boolean
}

export const shelves: ReadonlyArray<Shelf> = [
  {
    id: "connecting",
    title: "Connecting a system",
    readers: "connector developers calling the HTTP API",
    guides: [
      "quickstart",
      "setup",
      "identity-and-revisions",
      "modes",
      "idempotency-and-retries",
      "sync-flow",
      "imports-and-jobs",
      "media",
      "inventory",
      "limits",
      "errors",
      "client",
      "bulk-load"
    ],
    inPortal: true
  },
  {
    id: "operating",
    title: "Running the server",
    readers: "operators deploying and watching the server",
    guides: ["deploy", "configuration", "operations"],
    inPortal: true
  },
  {
    id: "developing",
    title: "Developing Catalog Sync",
    readers: "platform teams embedding the core and contributors",
    guides: [
      "architecture",
      "embedding",
      "testing",
      "development",
      "performance",
      "reliability",
      "spec-gaps",
      "node-support"
    ],
    inPortal: false
  }
]

/** The shelf a guide is on, if any. */
export const shelfOf = (slug: string): Shelf | undefined => shelves.find((shelf) => shelf.guides.includes(slug))
