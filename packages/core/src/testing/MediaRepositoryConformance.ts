import { describe, expect, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { contentKey, type StoredMedia } from "../Media/Media.js"
import { MediaRepository } from "../Media/MediaRepository.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"

const uuid = () => globalThis.crypto.randomUUID()

const media = (overrides: Partial<StoredMedia> = {}): StoredMedia => {
  const sha = uuid().replace(/-/g, "").padEnd(64, "0")
  return {
    id: uuid() as RecordId,
    companyId: uuid() as CompanyId,
    connectionId: uuid() as ConnectionId,
    externalId: `img-${uuid()}`,
    name: "Sofa, front",
    purpose: "catalog",
    state: "queued",
    jobId: uuid(),
    sourceSha256: sha,
    sourceBytes: 1234,
    sourceFormat: "jpeg",
    stagedKey: `${uuid()}.upload`,
    contentKey: contentKey(sha, "catalog"),
    width: null,
    height: null,
    bytes: null,
    failure: null,
    revision: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...overrides
  }
}

const completed = (item: StoredMedia, overrides: Partial<StoredMedia> = {}): StoredMedia => ({
  ...item,
  state: "completed",
  stagedKey: null,
  width: 1500,
  height: 750,
  bytes: 98_765,
  revision: item.revision + 1,
  updatedAt: "2026-01-01T00:01:00.000Z",
  ...overrides
})

/** The MediaRepository contract (in memory, SQLite, PostgreSQL). Every read stays inside its company. */
export const runMediaRepositoryConformance = (name: string, ports: Layer.Layer<MediaRepository, unknown>) =>
  layer(ports, { timeout: 60_000 })(`media repository conformance: ${name}`, (it) => {
    describe("media", () => {
      it.effect("insert, get and update round-trip every field; another company sees nothing", () =>
        Effect.gen(function* () {
          const repository = yield* MediaRepository
          const item = media({ sourceBytes: 10 * 1024 * 1024, purpose: "option", sourceFormat: "webp" })
          yield* repository.insert(item)
          expect(Option.getOrThrow(yield* repository.get(item.companyId, item.id))).toEqual(item)
          expect(Option.isNone(yield* repository.get(uuid() as CompanyId, item.id))).toBe(true)
          const failed: StoredMedia = {
            ...item,
            state: "failed",
            stagedKey: null,
            failure: { code: "image_corrupt", message: "cannot be read" },
            revision: 2
          }
          yield* repository.update(failed)
          expect(Option.getOrThrow(yield* repository.get(item.companyId, item.id))).toEqual(failed)
          // An update naming another company changes nothing.
          yield* repository.update({ ...failed, companyId: uuid() as CompanyId, name: "stolen" })
          expect(Option.getOrThrow(yield* repository.get(item.companyId, item.id)).name).toBe(item.name)
          const done = completed(item)
          yield* repository.update(done)
          expect(Option.getOrThrow(yield* repository.byJob(item.jobId))).toEqual(done)
          expect(Option.isNone(yield* repository.byJob(uuid()))).toBe(true)
        })
      )

      it.effect("completedWithContent finds a completed item of the company with that content key only", () =>
        Effect.gen(function* () {
          const repository = yield* MediaRepository
          const companyId = uuid() as CompanyId
          const key = contentKey("ab".repeat(32), "catalog")
          const queued = media({ companyId, contentKey: key })
          yield* repository.insert(queued)
          expect(Option.isNone(yield* repository.completedWithContent(companyId, key))).toBe(true)
          const elsewhere = completed(media({ contentKey: key }))
          yield* repository.insert(elsewhere)
          expect(Option.isNone(yield* repository.completedWithContent(companyId, key))).toBe(true)
          const done = completed(media({ companyId, contentKey: key }))
          yield* repository.insert(done)
          expect(Option.getOrThrow(yield* repository.completedWithContent(companyId, key)).id).toBe(done.id)
          expect(
            Option.isNone(yield* repository.completedWithContent(companyId, contentKey("ab".repeat(32), "option")))
          ).toBe(true)
        })
      )

      it.effect("list pages the company's items in id order, after a cursor, narrowed to ids", () =>
        Effect.gen(function* () {
          const repository = yield* MediaRepository
          const companyId = uuid() as CompanyId
          const items = Array.from({ length: 5 }, () => media({ companyId }))
          yield* Effect.forEach(items, repository.insert)
          yield* repository.insert(media())
          const sorted = items.map((m) => m.id).sort()
          const all = yield* repository.list({ companyId, limit: 10 })
          expect(all.map((m) => m.id)).toEqual(sorted)
          expect((yield* repository.list({ companyId, limit: 2 })).map((m) => m.id)).toEqual(sorted.slice(0, 2))
          expect((yield* repository.list({ companyId, limit: 10, cursor: sorted[2] })).map((m) => m.id)).toEqual(
            sorted.slice(3)
          )
          const only = [sorted[4]!, sorted[1]!]
          expect((yield* repository.list({ companyId, limit: 10, ids: only })).map((m) => m.id)).toEqual([
            sorted[1],
            sorted[4]
          ])
          expect(yield* repository.list({ companyId: uuid() as CompanyId, limit: 10 })).toEqual([])
        })
      )

      it.effect(
        "stagedBytes sums the connection's items not processed yet; referencedStagedKeys and staged name them in every company",
        () =>
          Effect.gen(function* () {
            const repository = yield* MediaRepository
            const companyId = uuid() as CompanyId
            const connectionId = uuid() as ConnectionId
            expect(yield* repository.stagedBytes(companyId, connectionId)).toBe(0)
            const a = media({ companyId, connectionId, sourceBytes: 7 * 1024 * 1024 })
            const b = media({ companyId, connectionId, sourceBytes: 9 * 1024 * 1024 })
            const processed = media({ companyId, connectionId, sourceBytes: 5 })
            const otherConnection = media({ companyId, sourceBytes: 3 })
            yield* Effect.forEach([a, b, processed, otherConnection], repository.insert)
            yield* repository.update(completed(processed))
            expect(yield* repository.stagedBytes(companyId, connectionId)).toBe(16 * 1024 * 1024)
            const referenced = yield* repository.referencedStagedKeys
            expect([a, b, otherConnection].every((m) => referenced.has(m.stagedKey!))).toBe(true)
            expect(referenced.has(processed.stagedKey!)).toBe(false)
            const mine = (list: ReadonlyArray<StoredMedia>) =>
              list.filter((m) => [a, b, processed, otherConnection].some((x) => x.id === m.id))
            expect(mine(yield* repository.staged)).toEqual(
              [a, b, otherConnection].sort((x, y) => (x.id < y.id ? -1 : 1))
            )
            yield* repository.update(completed(a))
            expect(yield* repository.stagedBytes(companyId, connectionId)).toBe(9 * 1024 * 1024)
            expect((yield* repository.referencedStagedKeys).has(a.stagedKey!)).toBe(false)
            expect(mine(yield* repository.staged).map((m) => m.id)).toEqual(
              [b, otherConnection].map((m) => m.id).sort()
            )
          })
      )
    })
  })
