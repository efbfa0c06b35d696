import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { at, isObject, jobOf, records, str } from "../Json.js"
import { call, freshKey, type Reply, TestServer, TestServerLive } from "../TestServer.js"
import { endpoints } from "./ApiSurface.js"
import {
  allScopes,
  catalogResources,
  pngImage,
  type SeededCompany,
  seedCompany,
  uploadMedia,
  waitJob
} from "./SeededCompany.js"

/**
 * Who probes company A's data: a key of another company (B), and a key of another connection of A (A2),
 * which shares A's records (they belong to the company) but not A's first connection's external_id
 * mappings, jobs or Idempotency-Keys.
 */
interface Probers {
  readonly a: SeededCompany
  readonly b: string
  readonly a2: string
}

/** One request of a probe; `as` says who sends it. */
interface Probe {
  readonly as: "b" | "a2"
  readonly method: string
  readonly path: string
  readonly body?: unknown
  readonly idempotencyKey?: string
  /** Statuses the probe may get; anything else fails (a 5xx always does). */
  readonly statuses: ReadonlyArray<number>
}

/** What in a body would be a leak of A's data: to B anything of A's, to A2 what belongs to A's first connection. */
const secretsOf = (a: SeededCompany) => ({
  b: [
    a.companyId,
    a.connectionId,
    a.cardId,
    a.locationId,
    a.mediaId,
    a.mediaJobId,
    a.importJobId,
    ...Object.values(a.records),
    ...Object.values(a.externalIds),
    a.mediaExternalId,
    "alpha"
  ],
  a2: [...Object.values(a.externalIds), a.mediaExternalId, a.importJobId, "alpha-import-ext"]
})

const write = { statuses: [200, 202, 404, 409, 422] }
const read = { statuses: [200, 404, 422] }
const gone = { statuses: [404] }

const catalogCases = Object.fromEntries(
  catalogResources.flatMap((resource) => [
    [
      `${groupOf(resource)}.list`,
      ({ a }: Probers): ReadonlyArray<Probe> =>
        (["b", "a2"] as const).flatMap((as) => [
          { as, method: "GET", path: `/${resource}`, ...read },
          {
            as,
            method: "GET",
            path: `/${resource}?external_id=${encodeURIComponent(a.externalIds[resource])}`,
            ...read
          },
          // A's record id as a keyset cursor: a page of the prober's own records, if any.
          { as, method: "GET", path: `/${resource}?cursor=${a.records[resource]}`, ...read }
        ])
    ],
    [
      `${groupOf(resource)}.get`,
      ({ a }: Probers): ReadonlyArray<Probe> => [
        { as: "b", method: "GET", path: `/${resource}/${a.records[resource]}`, ...gone },
        { as: "b", method: "GET", path: `/${resource}/${a.records[resource].toUpperCase()}`, ...gone },
        // Records belong to the company: A2 reads them, without A's first connection's external_id.
        { as: "a2", method: "GET", path: `/${resource}/${a.records[resource]}`, statuses: [200] }
      ]
    ],
    [
      `${groupOf(resource)}.upsert`,
      ({ a }: Probers): ReadonlyArray<Probe> =>
        (["b", "a2"] as const).flatMap((as) => [
          // A's records named by uuid in References: unresolved for B; A2 shares them.
          {
            as,
            method: "POST",
            path: `/${resource}/upsert`,
            body: upsertBody(a, resource, as),
            idempotencyKey: freshKey(),
            ...write
          }
        ])
    ]
  ])
)

function groupOf(resource: string) {
  return resource.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())
}

/** An upsert of a new record of the prober that names A's records by uuid wherever a Reference goes. */
function upsertBody(a: SeededCompany, resource: string, as: "b" | "a2"): Record<string, unknown> {
  const base = { external_id: `${as}-probe-${resource}`, name: `${as} probe` }
  if (as === "a2")
    return resource === "products"
      ? { ...base, category_ids: [a.records.categories] }
      : resource === "customization-groups"
        ? { ...base, type_id: a.records["customization-types"] }
        : resource === "customization-options"
          ? { ...base, group_id: a.records["customization-groups"] }
          : base
  switch (resource) {
    case "products":
      return {
        ...base,
        category_ids: [a.records.categories],
        brand_id: a.records.brands,
        collection_id: a.records.collections
      }
    case "categories":
      return { ...base, parent_id: a.records.categories }
    case "customization-groups":
      return { ...base, type_id: a.records["customization-types"] }
    case "customization-options":
      return { ...base, group_id: a.records["customization-groups"] }
    default:
      return base
  }
}

const jobCases = (group: "jobs" | "imports") => ({
  [`${group}.list`]: ({ a }: Probers): ReadonlyArray<Probe> =>
    (["b", "a2"] as const).flatMap((as) => [
      { as, method: "GET", path: `/${group}`, ...read },
      { as, method: "GET", path: `/${group}?cursor=${a.importJobId}`, ...read }
    ]),
  // Jobs belong to the connection that made them.
  [`${group}.get`]: ({ a }: Probers): ReadonlyArray<Probe> =>
    (["b", "a2"] as const).flatMap((as) => [
      { as, method: "GET", path: `/${group}/${a.importJobId}`, ...gone },
      ...(group === "jobs" ? [{ as, method: "GET", path: `/jobs/${a.mediaJobId}`, ...gone }] : [])
    ]),
  [`${group}.retry`]: ({ a }: Probers): ReadonlyArray<Probe> =>
    (["b", "a2"] as const).map((as) => ({
      as,
      method: "POST",
      path: `/${group}/${a.importJobId}/retry`,
      idempotencyKey: freshKey(),
      ...gone
    }))
})

const cases: Record<string, (probers: Probers) => ReadonlyArray<Probe>> = {
  ...catalogCases,
  "products.archive": ({ a }) => [
    {
      as: "b",
      method: "DELETE",
      path: `/products/${a.records.products}`,
      body: { expected_revision: a.productRevision },
      idempotencyKey: freshKey(),
      ...gone
    }
  ],
  "me.me": () => [
    { as: "b", method: "GET", path: "/me", statuses: [200] },
    { as: "a2", method: "GET", path: "/me", statuses: [200] }
  ],
  "changes.changes": ({ a }) =>
    (["b", "a2"] as const).flatMap((as) => [
      { as, method: "GET", path: "/changes", ...read },
      // A's cursors: they carry a position only, never a way into A's history.
      { as, method: "GET", path: `/changes?cursor=${encodeURIComponent(a.changeCursor)}`, ...read },
      { as, method: "GET", path: `/changes?cursor=${encodeURIComponent(a.listChangeCursor)}`, ...read }
    ]),
  "inventory.list": ({ a }) =>
    (["b", "a2"] as const).flatMap((as) => [
      { as, method: "GET", path: "/inventory", ...read },
      { as, method: "GET", path: `/inventory?source_id=${a.records.products}`, ...read },
      { as, method: "GET", path: `/inventory?location_id=${a.locationId}`, ...read },
      { as, method: "GET", path: `/inventory?cursor=${a.cardId}`, ...read }
    ]),
  "inventory.get": ({ a }) => [{ as: "b", method: "GET", path: `/inventory/${a.cardId}`, ...gone }],
  "inventory.write": ({ a }) =>
    (["b", "a2"] as const).map((as) => ({
      as,
      method: "POST",
      path: "/inventory",
      // A's product and A's location (not assigned to A2 either): refused, A's balance untouched.
      body: {
        event_id: globalThis.crypto.randomUUID(),
        source_kind: "product",
        source_id: a.records.products,
        location_id: a.locationId,
        action: "in",
        quantity: "5",
        revision: 1,
        note: "probe"
      },
      idempotencyKey: freshKey(),
      statuses: [403, 404, 409, 422]
    })),
  "imports.submit": ({ a }) =>
    (["b", "a2"] as const).map((as) => ({
      as,
      method: "POST",
      path: "/imports",
      body: {
        records: [
          {
            resource: "products",
            body: { external_id: `${as}-imported`, name: "probe", category_ids: [a.records.categories] }
          }
        ]
      },
      idempotencyKey: freshKey(),
      statuses: [202]
    })),
  ...jobCases("imports"),
  ...jobCases("jobs"),
  "media.list": ({ a }) =>
    (["b", "a2"] as const).flatMap((as) => [
      { as, method: "GET", path: "/media", ...read },
      { as, method: "GET", path: `/media?external_id=${encodeURIComponent(a.mediaExternalId)}`, ...read },
      { as, method: "GET", path: `/media?cursor=${a.mediaId}`, ...read }
    ]),
  "media.get": ({ a }) => [
    { as: "b", method: "GET", path: `/media/${a.mediaId}`, ...gone },
    { as: "a2", method: "GET", path: `/media/${a.mediaId}`, statuses: [200] }
  ],
  "media.content": ({ a }) => [{ as: "b", method: "GET", path: `/media/${a.mediaId}/content`, ...gone }],
  // Sent as multipart below (the probe list cannot carry a file): B's upload under A's external_id.
  "media.upload": () => [],
  // Public: no company data at all.
  "system.health": () => [{ as: "b", method: "GET", path: "/health", statuses: [200] }],
  "system.ready": () => [{ as: "b", method: "GET", path: "/ready", statuses: [200] }]
}

/** Everything of A that its first connection can read, to compare before and after the probes. */
const snapshot = (a: SeededCompany) =>
  Effect.gen(function* () {
    const get = (path: string) => Effect.map(call(a.url, "GET", path, { token: a.token }), (reply) => reply.body)
    const strip = (body: unknown) => JSON.stringify(isObject(body) ? { ...body, request_id: undefined } : body)
    const paths = [
      ...catalogResources.map((r) => `/${r}?limit=100`),
      "/changes?limit=100",
      "/inventory",
      "/jobs",
      "/imports",
      "/media",
      `/media/${a.mediaId}`,
      `/jobs/${a.importJobId}`
    ]
    return yield* Effect.forEach(paths, (path) => Effect.map(get(path), (body) => `${path} ${strip(body)}`))
  })

const raw = (url: string, token: string, probe: Probe): Effect.Effect<Reply, unknown> =>
  probe.path === "/health" || probe.path === "/ready"
    ? Effect.promise(async () => {
        const response = await fetch(`${url}${probe.path}`)
        const text = await response.text()
        return {
          status: response.status,
          headers: response.headers,
          body: text === "" ? undefined : JSON.parse(text),
          text
        }
      })
    : call(url, probe.method, probe.path, {
        token,
        ...(probe.body === undefined ? {} : { body: probe.body }),
        idempotencyKey: probe.idempotencyKey ?? null
      })

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })("isolation sweep", (it) => {
  it.effect(
    "keys of another company and of another connection probe every endpoint with company A's ids, external ids, cursors, jobs and keys: nothing leaks, nothing of A changes",
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const a = yield* seedCompany("alpha")
        const other = yield* seedCompany("bravo")
        const b = other.token
        const a2 = yield* a.newKey(allScopes, yield* a.newConnection)
        const probers: Probers = { a, b, a2 }

        // Every endpoint of the contract has a case, and every case an endpoint.
        expect(Object.keys(cases).sort()).toEqual(endpoints.map((e) => e.key).sort())

        const before = yield* snapshot(a)
        const secrets = secretsOf(a)
        let sent = 0
        for (const endpoint of endpoints) {
          for (const probe of cases[endpoint.key]!(probers)) {
            const reply = yield* raw(url, probe.as === "b" ? b : a2, probe)
            sent++
            const seen = { endpoint: endpoint.key, as: probe.as, path: probe.path, status: reply.status }
            expect(probe.statuses.includes(reply.status), `${JSON.stringify(seen)} ${reply.text.slice(0, 300)}`).toBe(
              true
            )
            // What the prober sent may come back in an error message; anything else of A's is a leak.
            const sentText = `${probe.path} ${JSON.stringify(probe.body ?? null)}`.toLowerCase()
            const leaked = secrets[probe.as].filter(
              (secret) => reply.text.includes(secret) && !sentText.includes(secret.toLowerCase())
            )
            expect({ ...seen, leaked }).toEqual({ ...seen, leaked: [] })
            if (probe.path === "/imports" && reply.status === 202) {
              // The job names A's category by uuid: unresolved for B (its record fails); A2 shares A's records.
              const job = yield* waitJob(url, probe.as === "b" ? b : a2, jobOf(reply.body).id)
              expect({ ...seen, state: job.state, failed: job.counts.failed }).toEqual({
                ...seen,
                state: "completed",
                failed: probe.as === "b" ? 1 : 0
              })
            }
          }
        }
        // Multipart: an upload under A's media external_id is the prober's own new item.
        for (const [as, token] of [
          ["b", b],
          ["a2", a2]
        ] as const) {
          const upload = yield* uploadMedia(
            url,
            token,
            { external_id: a.mediaExternalId, name: `${as} probe`, purpose: "catalog" },
            yield* pngImage
          )
          sent++
          expect({ as, status: upload.status }).toEqual({ as, status: 202 })
          expect({
            as,
            leaked: secretsOf(a)[as].filter((s) => upload.text.includes(s) && s !== a.mediaExternalId)
          }).toEqual({ as, leaked: [] })
          expect(str(upload.body, "job", "id")).not.toBe(a.mediaJobId)
          yield* waitJob(url, token, str(upload.body, "job", "id"))
        }
        // After the sweep (they leave the senders records under A's external ids): A's Idempotency-Key with
        // A's very request runs for the sender, never replaying A's stored answer; and A's external_id names
        // a record of the sender's own.
        for (const [as, token] of [
          ["b", b],
          ["a2", a2]
        ] as const) {
          const again = yield* call(url, "POST", a.usedIdempotency.path, {
            token,
            body: a.usedIdempotency.body,
            idempotencyKey: a.usedIdempotency.key
          })
          sent++
          expect({
            as,
            replayed: at(again.body, "replayed"),
            same: at(again.body, "record", "id") === a.records.products
          }).toEqual({
            as,
            replayed: undefined,
            same: false
          })
        }
        for (const [as, token] of [
          ["b", b],
          ["a2", a2]
        ] as const) {
          const mine = yield* call(url, "POST", "/categories/upsert", {
            token,
            body: { external_id: a.externalIds.categories, name: `${as} own` }
          })
          sent++
          expect({
            as,
            status: mine.status,
            outcome: at(mine.body, "outcome"),
            same: at(mine.body, "record", "id") === a.records.categories
          }).toEqual({ as, status: 200, outcome: "created", same: false })
        }
        // A2 reads A's records by uuid, without the first connection's external_id.
        const viaA2 = yield* call(url, "GET", `/products/${a.records.products}`, { token: a2 })
        expect({ id: at(viaA2.body, "record", "id"), external_id: at(viaA2.body, "record", "external_id") }).toEqual({
          id: a.records.products,
          external_id: null
        })

        const after = yield* snapshot(a)
        // Only what A2 did as a member of the company may show in A's view: its own records and changes.
        const ownOnly = (lines: ReadonlyArray<string>) =>
          lines.filter(
            (line) => !/^\/(changes|products|categories|collections|brands|customization-\w+|media)[? ]/.test(line)
          )
        expect(ownOnly(after)).toEqual(ownOnly(before))
        for (const resource of catalogResources) {
          const listed = records(
            (yield* call(url, "GET", `/${resource}?external_id=${encodeURIComponent(a.externalIds[resource])}`, {
              token: a.token
            })).body
          )
          expect({ resource, records: listed.map((r) => [r.id, r.revision, r.name]) }).toEqual({
            resource,
            records: [[a.records[resource], resource === "products" ? a.productRevision : 1, `alpha ${resource}`]]
          })
        }
        console.log(`isolation sweep (${endpoints.length} endpoints): ${sent} probes, 0 leaks`)
        expect(sent).toBeGreaterThan(endpoints.length)
      })
  )
})
