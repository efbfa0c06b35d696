/**
 * A small connector written the way a team outside TypeScript's Effect world integrates: types generated
 * from GET /api/v1/openapi.json with openapi-typescript (`openapi-types.d.ts`, made by the test next to a
 * copy of this file) and requests sent with openapi-fetch. It must typecheck against the generated types
 * and run against a live server (generated-client.e2e.test.ts).
 */
import createClient from "openapi-fetch"
import type { components, paths } from "./openapi-types.js"

type Product = components["schemas"]["Product"]
type ErrorDetail = components["schemas"]["ErrorDetail"]

export interface ConnectorOptions {
  readonly baseUrl: string
  readonly token: string
  /** Distinguishes this run's idempotency keys and external ids. */
  readonly runId: string
}

/** What the connector saw, for the test to compare with what it sent. */
export interface ConnectorReport {
  readonly categoryId: string
  readonly createdIds: ReadonlyArray<string>
  readonly readBack: Pick<Product, "id" | "name" | "revision" | "category_ids">
  readonly pages: ReadonlyArray<ReadonlyArray<string>>
  readonly feed: ReadonlyArray<{ readonly resource: string; readonly id: string; readonly operation: string }>
  readonly feedCursor: string
  readonly job: {
    readonly id: string
    readonly state: string
    readonly created: number
    readonly failed: number
    readonly polls: number
  }
  readonly errors: {
    readonly notFound: { readonly status: number; readonly code: string }
    readonly conflict: { readonly status: number; readonly code: string; readonly currentRevision: number }
    readonly invalid: { readonly status: number; readonly code: string; readonly paths: ReadonlyArray<string> }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The error body the API sends with every 4xx and 5xx, whichever status. */
const describe = (response: Response, error: { readonly error: ErrorDetail } | undefined) => ({
  status: response.status,
  code: error?.error.code ?? ""
})

export const runConnector = async (options: ConnectorOptions): Promise<ConnectorReport> => {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}`, "User-Agent": "example-connector/1.0.0" }
  })
  let writes = 0
  const key = () => `${options.runId}-write-${++writes}`
  const fail = (what: string, response: Response, error: unknown): never => {
    throw new Error(`${what}: ${response.status} ${JSON.stringify(error)}`)
  }

  // Create: a category, then products in it (References by external_id).
  const category = await client.POST("/api/v1/categories/upsert", {
    params: { header: { "idempotency-key": key() } },
    body: { external_id: `${options.runId}-sofas`, name: "Sofas" }
  })
  if (category.data === undefined) return fail("category", category.response, category.error)
  const createdIds: Array<string> = []
  for (let i = 1; i <= 5; i++) {
    const created = await client.POST("/api/v1/products/upsert", {
      params: { header: { "idempotency-key": key() } },
      body: {
        external_id: `${options.runId}-sofa-${i}`,
        name: `Sofa ${i}`,
        kind: "single",
        unit: "piece",
        category_ids: [{ external_id: `${options.runId}-sofas` }]
      }
    })
    if (created.data === undefined) return fail("product", created.response, created.error)
    createdIds.push(created.data.record.id)
  }

  // Read one by id.
  const one = await client.GET("/api/v1/products/{id}", { params: { path: { id: createdIds[0]! } } })
  if (one.data === undefined) return fail("read", one.response, one.error)
  // A key without catalog:read would get the price view; this one reads the whole record.
  const record = one.data.record
  if (!("category_ids" in record)) throw new Error("expected the full product record")
  const { id, name, revision, category_ids } = record

  // Page the list with limit and cursor; the first page's change_cursor starts the feed.
  const pages: Array<Array<string>> = []
  let cursor: string | undefined
  let changeCursor: string | undefined
  for (;;) {
    const page = await client.GET("/api/v1/products", {
      params: { query: { limit: 2, ...(cursor === undefined ? {} : { cursor }) } }
    })
    if (page.data === undefined) return fail("list", page.response, page.error)
    changeCursor ??= page.data.change_cursor
    pages.push(page.data.records.map((record) => record.id))
    if (!page.data.has_more || page.data.next_cursor === null) break
    cursor = page.data.next_cursor
  }

  // Follow the feed from the beginning, persisting next_cursor after every call (even an empty page).
  const feed: Array<{ resource: string; id: string; operation: string }> = []
  let feedCursor: string | undefined
  for (;;) {
    const changes = await client.GET("/api/v1/changes", {
      params: { query: { limit: 3, ...(feedCursor === undefined ? {} : { cursor: feedCursor }) } }
    })
    if (changes.data === undefined) return fail("changes", changes.response, changes.error)
    feed.push(...changes.data.records.map(({ resource, id, operation }) => ({ resource, id, operation })))
    feedCursor = changes.data.next_cursor
    if (!changes.data.has_more) break
  }
  if (changeCursor === undefined) throw new Error("the first list page carried no change_cursor")

  // Submit an import (202 with a job) and poll the job until it ends.
  const submitted = await client.POST("/api/v1/imports", {
    params: { header: { "idempotency-key": key() } },
    body: {
      records: [
        {
          resource: "products",
          body: {
            external_id: `${options.runId}-chair`,
            name: "Armchair",
            category_ids: [{ external_id: `${options.runId}-chairs` }]
          }
        },
        { resource: "categories", body: { external_id: `${options.runId}-chairs`, name: "Chairs" } },
        {
          resource: "products",
          body: {
            external_id: `${options.runId}-ghost`,
            name: "Ghost",
            category_ids: [{ external_id: `${options.runId}-nowhere` }]
          }
        }
      ]
    }
  })
  if (submitted.data === undefined || !("job" in submitted.data))
    return fail("import", submitted.response, submitted.error)
  let polls = 0
  let job = submitted.data.job
  while (job.state === "queued" || job.state === "running") {
    await sleep(25)
    polls++
    const polled = await client.GET("/api/v1/imports/{id}", { params: { path: { id: job.id } } })
    if (polled.data === undefined) return fail("job", polled.response, polled.error)
    job = polled.data.job
  }

  // Typed errors: 404, 409 and 422, each with its error.code.
  const missing = await client.GET("/api/v1/products/{id}", {
    params: { path: { id: "0b7c3e1a-5f2d-4c8e-9a61-3d2f4b5c6e7f" } }
  })
  const stale = await client.POST("/api/v1/products/upsert", {
    params: { header: { "idempotency-key": key() } },
    body: { external_id: `${options.runId}-sofa-1`, expected_revision: 7, name: "Renamed" }
  })
  const conflictDetails = stale.error?.error.details as { readonly current_revision?: number } | undefined
  const invalid = await client.POST("/api/v1/products/upsert", {
    params: { header: { "idempotency-key": key() } },
    body: { external_id: "", name: "x".repeat(201) }
  })
  const invalidDetails = (invalid.error?.error.details ?? []) as ReadonlyArray<{ readonly path: string }>

  return {
    categoryId: category.data.record.id,
    createdIds,
    readBack: { id, name, revision, category_ids },
    pages,
    feed,
    feedCursor: feedCursor ?? "",
    job: { id: job.id, state: job.state, created: job.counts.created, failed: job.counts.failed, polls },
    errors: {
      notFound: describe(missing.response, missing.error),
      conflict: { ...describe(stale.response, stale.error), currentRevision: conflictDetails?.current_revision ?? -1 },
      invalid: { ...describe(invalid.response, invalid.error), paths: invalidDetails.map((detail) => detail.path) }
    }
  }
}
