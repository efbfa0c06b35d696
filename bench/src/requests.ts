/** The API requests of the benchmark: setup calls, and request generators for autocannon (load.ts). */
import { randomUUID } from "node:crypto"
import { type JsonObject, numberAt, objectAt, stringAt, valueAt } from "./json.js"
import type { LoadRequest } from "./load.js"
import type { Company } from "./setup.js"

/** One API call of the setup; its answer, a JSON object read through json.ts. */
export const api = async (
  url: string,
  method: string,
  path: string,
  token: string,
  body?: unknown
): Promise<JsonObject> => {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined
        ? {}
        : { "content-type": "application/json", "idempotency-key": `bench-setup-${randomUUID()}` })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json: unknown = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return objectAt(json)
}

export const inBatches = async <A>(items: ReadonlyArray<A>, size: number, f: (a: A) => Promise<void>) => {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(f))
}

/** Category `sofas` and product `p0` in every company, through the API. */
export const seedThroughApi = async (url: string, companies: ReadonlyArray<Company>) => {
  await inBatches(companies, 16, async (company) => {
    const token = company.tokens[0]!
    await api(url, "POST", "/categories/upsert", token, { external_id: "sofas", name: "Sofas" })
    const created = await api(url, "POST", "/products/upsert", token, {
      external_id: "p0",
      name: "Sofa",
      category_ids: [{ external_id: "sofas" }],
      mode: "combined",
      price: "1299"
    })
    company.productId = stringAt(created, "record", "id")
  })
}

/** Round-robin over companies, and over each company's keys, so no key or company meets its limit. */
export const rotation = (companies: ReadonlyArray<Company>) => {
  let n = 0
  return () => {
    const i = n++
    const company = companies[i % companies.length]!
    const token = company.tokens[Math.floor(i / companies.length) % company.tokens.length]!
    return { index: i % companies.length, company, token }
  }
}

export const getRequest = (companies: ReadonlyArray<Company>): LoadRequest => {
  const next = rotation(companies)
  return {
    path: "/",
    next: () => {
      const { company, token } = next()
      return { path: `/api/v1/products/${company.productId}`, headers: { authorization: `Bearer ${token}` } }
    }
  }
}

export const listRequest = (companies: ReadonlyArray<Company>, query: string): LoadRequest => {
  const next = rotation(companies)
  return {
    path: "/",
    next: () => ({ path: `/api/v1/products?${query}`, headers: { authorization: `Bearer ${next().token}` } })
  }
}

let writeCounter = 0
export const runId = Date.now().toString(36)

export const createRequest = (companies: ReadonlyArray<Company>): LoadRequest => {
  const next = rotation(companies)
  return {
    method: "POST",
    path: "/api/v1/products/upsert",
    headers: { "content-type": "application/json" },
    next: () => {
      const { token } = next()
      const n = ++writeCounter
      return {
        path: "/api/v1/products/upsert",
        headers: { authorization: `Bearer ${token}`, "idempotency-key": `bench-${runId}-${n}` },
        body: JSON.stringify({
          external_id: `bench-${runId}-${n}`,
          name: `Sofa ${n}`,
          category_ids: [{ external_id: "sofas" }],
          mode: "combined",
          price: "1299"
        })
      }
    }
  }
}

/**
 * Updates of each company's `p0` with the revision last seen for it. Companies outnumber connections
 * many times over, so one company never has two updates in flight; a request cut off at the end of a
 * run is caught up from the 409's `current_revision` (counted, never as throughput).
 */
export const updateRequest = (companies: ReadonlyArray<Company>, revisions: Array<number>): LoadRequest => {
  const next = rotation(companies)
  return {
    method: "POST",
    path: "/api/v1/products/upsert",
    headers: { "content-type": "application/json" },
    next: (context) => {
      const { index, token } = next()
      context.index = index
      const n = ++writeCounter
      return {
        path: "/api/v1/products/upsert",
        headers: { authorization: `Bearer ${token}`, "idempotency-key": `bench-${runId}-${n}` },
        body: JSON.stringify({ external_id: "p0", expected_revision: revisions[index], name: `Sofa ${n}` })
      }
    },
    onResponse: (status, body, context) => {
      const index = numberAt(context, "index")
      if (status === 200) revisions[index]!++
      else if (status === 409) {
        const current = valueAt(JSON.parse(body), "error", "details", "current_revision")
        if (typeof current === "number") revisions[index] = current
      }
    }
  }
}

/** Feed polls with each company's up-to-date cursor: what connectors do every few seconds. */
export const feedRequest = (companies: ReadonlyArray<Company>, cursors: ReadonlyArray<string>): LoadRequest => {
  const next = rotation(companies)
  return {
    path: "/",
    next: () => {
      const { index, token } = next()
      return { path: `/api/v1/changes?cursor=${cursors[index]}`, headers: { authorization: `Bearer ${token}` } }
    }
  }
}

/** The cursor after a company's newest change, read through the feed as a connector would. */
export const feedCursor = async (url: string, token: string) => {
  let cursor: string | undefined
  for (;;) {
    const page = await api(url, "GET", `/changes?limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`, token)
    cursor = stringAt(page, "next_cursor")
    if (page.has_more !== true) return cursor
  }
}
