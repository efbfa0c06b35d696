/**
 * A small two-way connector for the sync simulation: an in-memory source system (categories keyed by
 * the connector's own external ids) synced with the server through the typed client, the way
 * examples/folder-sync does it, with what a connector needs to survive faults:
 *
 * - Sync state (feed cursor; per record its id, revision, merge base and whether this connection has
 *   mapped it) is persisted after every feed page and every acknowledged push. A crash loses whatever
 *   was not persisted; the source system itself is durable (like files on disk).
 * - Each push's Idempotency-Key is derived from its body, so a push repeated after a crash or a dropped
 *   response replays the stored result instead of writing again.
 * - Own changes are skipped in the feed (origin_connection_id), and a record is pushed only when the
 *   source differs from its merge base: nothing echoes.
 *
 * Merge policy: a three-way merge per field against the merge base. A field changed on one side only
 * takes that side's value; a field changed on both sides takes the server's value, i.e. the edit that
 * reached the server first wins and the later one is dropped.
 */
import { CatalogSyncClient, type Client, RevisionConflict } from "@catalog-sync/client"
import { Data, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { createHash } from "node:crypto"

export interface Doc {
  readonly name: string
  readonly description?: string
}

interface Entry {
  readonly id: string
  readonly revision: number
  readonly base: Doc
  readonly mapped: boolean
}

/** What survives a crash. */
export interface Persisted {
  readonly cursor: string | undefined
  readonly entries: Readonly<Record<string, Entry>>
}

/** The simulated crash of a connector process. */
export class Crash extends Data.TaggedError("Crash")<{ readonly at: string }> {}

const fields = ["name", "description"] as const

const toDoc = (record: { readonly name?: unknown; readonly description?: unknown }): Doc => ({
  name: record.name as string,
  ...(typeof record.description === "string" ? { description: record.description } : {})
})

export const sameDoc = (a: Doc | undefined, b: Doc | undefined) =>
  a?.name === b?.name && a?.description === b?.description

/** The merge policy (see above). */
export const merge = (base: Doc, local: Doc, remote: Doc): Doc => {
  const out: Record<string, string> = {}
  for (const field of fields) {
    const value = remote[field] !== base[field] ? remote[field] : local[field]
    if (value !== undefined) out[field] = value
  }
  return out as unknown as Doc
}

/**
 * A fetch that, at the given rate, drops the response after the server has processed the request,
 * as a broken connection would: the client sees a transport failure and retries the same request.
 */
export const droppingFetch = (rate: () => boolean, stats: { dropped: number }): typeof fetch =>
  (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await globalThis.fetch(input, init)
    if (!rate()) return response
    await response.arrayBuffer().catch(() => undefined)
    stats.dropped++
    throw new TypeError("fetch failed: response dropped by the simulation")
  }) as typeof fetch

export const makeClient = (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly fetch: typeof fetch
}): Promise<Client> =>
  Effect.runPromise(
    CatalogSyncClient.make({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      appName: "sync-sim",
      appVersion: "1.0.0",
      paceBelow: 0,
      retry: { maxAttempts: 8, baseDelay: "2 millis", maxDelay: "20 millis" }
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.provideService(FetchHttpClient.Fetch, options.fetch))
  )

/** Counters of one connector, across its restarts. */
export interface Counters {
  writes: number
  applied: number
  crashes: number
}

/** One connector process: its state is what was persisted when it started. */
export class Connector {
  private cursor: string | undefined
  private readonly entries: Record<string, Entry>
  /** Steps left before the simulated crash (each applied change and each acknowledged push is a step). */
  crashIn: number | undefined = undefined

  constructor(
    readonly prefix: string,
    private readonly client: Client,
    /** The source system: durable, edited by its users between cycles. */
    readonly source: Map<string, Doc>,
    private readonly disk: { persisted: Persisted },
    readonly counters: Counters
  ) {
    this.cursor = disk.persisted.cursor
    this.entries = structuredClone(disk.persisted.entries) as Record<string, Entry>
  }

  private persist() {
    this.disk.persisted = structuredClone({ cursor: this.cursor, entries: this.entries })
  }

  private step(at: string) {
    if (this.crashIn === undefined) return Effect.void
    this.crashIn--
    return this.crashIn <= 0 ? Effect.fail(new Crash({ at })) : Effect.void
  }

  /** The catalog as this side holds it, by record id (records pushed or pulled at least once). */
  catalog(): Map<string, Doc> {
    return new Map(Object.entries(this.entries).map(([ext, entry]) => [entry.id, this.source.get(ext)!]))
  }

  /** One cycle: pull the feed, then push what differs from its merge base. Returns the writes it sent. */
  cycle() {
    const self = this
    return Effect.gen(function* () {
      const before = self.counters.writes
      yield* self.client.followChanges({
        cursor: self.cursor,
        resources: ["categories"],
        limit: 5,
        onChanges: (changes) => Effect.forEach(changes, (change) => self.apply(change), { discard: true }),
        saveCursor: (cursor) =>
          Effect.sync(() => {
            self.cursor = cursor
            self.persist()
          })
      })
      for (const ext of Array.from(self.source.keys())) {
        const entry = self.entries[ext]
        if (entry !== undefined && sameDoc(entry.base, self.source.get(ext))) continue
        yield* self.push(ext)
      }
      return self.counters.writes - before
    })
  }

  private apply(change: { readonly id: string; readonly revision: number; readonly external_id: string | null }) {
    const self = this
    return Effect.gen(function* () {
      const known = Object.entries(self.entries).find(([, e]) => e.id === change.id)?.[0]
      const ext = known ?? change.external_id ?? `${self.prefix}~${change.id}`
      const entry = self.entries[ext]
      // Delivered again after a crash, or already read at a later revision.
      if (entry !== undefined && entry.revision >= change.revision) return
      const record = yield* self.client.get("categories", change.id)
      const remote = toDoc(record)
      const local = self.source.get(ext)
      // A source edited since the last sync keeps its edits (merged); the push step sends the result.
      self.source.set(ext, local === undefined || entry === undefined ? remote : merge(entry.base, local, remote))
      self.entries[ext] = {
        id: change.id,
        revision: record.revision,
        base: remote,
        mapped: entry?.mapped ?? change.external_id !== null
      }
      self.counters.applied++
      yield* self.step(`applied ${change.id}@${change.revision}`)
    })
  }

  private push(ext: string) {
    const self = this
    return Effect.gen(function* () {
      for (let attempt = 0; attempt < 10; attempt++) {
        const entry = self.entries[ext]
        const doc = self.source.get(ext)!
        if (entry !== undefined && sameDoc(entry.base, doc)) return
        const body = {
          external_id: ext,
          ...doc,
          expected_revision: entry?.revision ?? 0,
          // A record first seen through the other connection is mapped to our external id on its first push.
          ...(entry !== undefined && !entry.mapped ? { target_id: entry.id } : {})
        }
        const idempotencyKey = `sim-${self.prefix}-${createHash("sha256").update(JSON.stringify(body)).digest("hex").slice(0, 40)}`
        self.counters.writes++
        const result = yield* Effect.result(self.client.upsert("categories", body, { idempotencyKey }))
        if (result._tag === "Success") {
          const record = result.success.record
          self.entries[ext] = { id: record.id, revision: record.revision, base: toDoc(record), mapped: true }
          self.source.set(ext, toDoc(record))
          self.persist()
          yield* self.step(`pushed ${ext}`)
          return
        }
        if (!(result.failure instanceof RevisionConflict) || entry === undefined)
          return yield* Effect.fail(result.failure)
        // Someone else wrote first: merge against what is stored now, then try again from its revision.
        const current = yield* self.client.get("categories", entry.id)
        const remote = toDoc(current)
        self.source.set(ext, merge(entry.base, doc, remote))
        self.entries[ext] = { ...entry, revision: current.revision, base: remote }
      }
      return yield* Effect.die(new Error(`${ext}: still conflicting after 10 attempts`))
    })
  }
}
