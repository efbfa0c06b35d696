import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import type { Principal } from "../src/Auth/Principal.js"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import { ImportService } from "../src/Imports/ImportService.js"
import { Accounts } from "../src/Auth/Accounts.js"
import { JobAdmin } from "../src/Admin/JobAdmin.js"
import { Actor, AuditLog } from "../src/Audit/AuditLog.js"
import * as JobKinds from "../src/Jobs/JobKinds.js"
import { JobService } from "../src/Jobs/JobService.js"
import { JobStore } from "../src/Jobs/JobStore.js"
import { ImageProcessor } from "../src/Media/ImageProcessor.js"
import { maxStagedBytesPerConnection, type MediaFields } from "../src/Media/Media.js"
import { MediaStorageError } from "../src/Media/MediaErrors.js"
import { MediaRepository } from "../src/Media/MediaRepository.js"
import { MediaService } from "../src/Media/MediaService.js"
import { sweepStaging, stagingGraceMillis } from "../src/Media/MediaStagingSweep.js"
import { MediaStaging, MediaStorage, type StagedFile } from "../src/Media/MediaStorage.js"
import { IdsLive } from "../src/Shared/Ids.js"
import type { Scope } from "../src/Shared/Scope.js"
import { chunksOf, InMemory, InMemoryJobs, InMemoryMedia } from "../src/testing.js"
import { anotherKey, as, principal, registeredTenant, uuid } from "./support.js"
import { effectProp } from "./properties.js"

/**
 * A fresh world per test: in-memory ports, a storage whose folders can be made to refuse writes, and an
 * image processor that records which sources it processed (by the label in their payload).
 */
const makeWorld = Effect.gen(function* () {
  const staged = yield* InMemoryMedia.makeStaging
  const storage = yield* InMemoryMedia.makeStorage
  const denied = new Set<string>()
  const processed: Array<string> = []
  const written: Array<string> = []
  /** Labels whose processing never ends (a stalled decoder). */
  const stalled = new Set<string>()
  const guarded = MediaStorage.of({
    ...storage,
    put: (folder, key, data) =>
      denied.has(folder)
        ? Effect.fail(new MediaStorageError({ reason: "denied", message: `folder ${folder} is read-only` }))
        : Effect.andThen(
            Effect.sync(() => void written.push(`${folder}/${key}`)),
            storage.put(folder, key, data)
          )
  })
  const images = ImageProcessor.of({
    inspect: InMemoryMedia.imageProcessor.inspect,
    process: (source, options) =>
      Effect.andThen(
        Effect.sync(() => void processed.push(labelOf(source))),
        stalled.has(labelOf(source)) ? Effect.never : InMemoryMedia.imageProcessor.process(source, options)
      )
  })
  const ports = Layer.mergeAll(
    InMemory.layer,
    InMemory.accountsLayer,
    InMemory.peopleLayer,
    InMemoryJobs.layer,
    InMemoryMedia.repositoryLayer,
    Layer.succeed(MediaStaging, staged.staging),
    Layer.succeed(MediaStorage, guarded),
    Layer.succeed(ImageProcessor, images)
  )
  const layer = Layer.mergeAll(JobService.Default, JobAdmin.Default).pipe(
    Layer.provideMerge(JobKinds.layer),
    Layer.provideMerge(MediaService.Default),
    Layer.provideMerge(ImportService.Default),
    Layer.provideMerge(CatalogService.Default),
    Layer.provideMerge(ports),
    Layer.provideMerge(IdsLive)
  )
  return { layer, staged, denied, processed, written, stalled }
})
type World = Effect.Success<typeof makeWorld>
type Services = Layer.Success<World["layer"]>

const inWorld = <A, E>(f: (world: World) => Effect.Effect<A, E, Services>) =>
  Effect.flatMap(makeWorld, (world) => Effect.provide(f(world), world.layer))

const labelOf = (source: Uint8Array) => /img:[\w.-]+/.exec(new TextDecoder("latin1").decode(source))?.[0] ?? "?"
const picture = (label: string, width = 800, height = 600) =>
  InMemoryMedia.fakeImage({ width, height, payload: `img:${label}` })

const tenant = (scopes?: ReadonlyArray<Scope>) =>
  registeredTenant(["catalog:read", "catalog:write", "media:read", "media:write"], scopes)

const stage = (bytes: Uint8Array) =>
  Effect.flatMap(MediaStaging, (staging) => staging.write(...chunksOf(Stream.make(bytes))))

const upload = (who: Principal, fields: Record<string, string>, bytes: Uint8Array) =>
  Effect.flatMap(stage(bytes), (staged) => Effect.flatMap(MediaService, (media) => media.upload(fields, staged))).pipe(
    as(who)
  )

const fields = (externalId: string, overrides: Partial<MediaFields> = {}) => ({
  external_id: externalId,
  name: `Image ${externalId}`,
  purpose: "catalog",
  ...overrides
})

const claim = (workerId: string) =>
  Effect.flatMap(JobStore, (jobs) =>
    jobs.claim({ workerId, nowMillis: 1_000, leaseMillis: 60_000, at: "2026-01-01T00:00:00.000Z" })
  )

/** Runs every claimable job to its end, one after the other, as one worker would. */
const work = Effect.gen(function* () {
  const media = yield* MediaService
  for (;;) {
    const claimed = yield* claim("worker")
    if (Option.isNone(claimed)) return
    yield* media.process(claimed.value, "worker")
  }
})

/** The operator acting in the audit log, as the CLI names one. */
const operator = { label: "cli:ops", userId: null, address: null }

const jobState = (who: Principal, id: string) =>
  Effect.map(Effect.flatMap(JobService, (jobs) => jobs.get(id)).pipe(as(who)), (detail) => detail.job.state)

describe("MediaService", () => {
  effectProp(
    "versions are immutable: the same file, name and purpose reuse the version; any change is refused and names what changed",
    [
      fc.record({
        bytes: fc.boolean(),
        name: fc.boolean(),
        purpose: fc.boolean(),
        processedFirst: fc.boolean(),
        label: fc.stringMatching(/^[a-z0-9]{1,12}$/)
      })
    ],
    ([change]) =>
      inWorld((world) =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const original = picture(change.label)
          const first = yield* upload(who, fields("sofa"), original)
          if (change.processedFirst) yield* work
          const calls = world.processed.length
          const again = yield* Effect.result(
            upload(
              who,
              fields("sofa", {
                ...(change.name ? { name: "Renamed" } : {}),
                ...(change.purpose ? { purpose: "option" } : {})
              }),
              change.bytes ? picture(`${change.label}-v2`) : original
            )
          )
          const expected = [
            ...(change.bytes ? ["file"] : []),
            ...(change.name ? ["name"] : []),
            ...(change.purpose ? ["purpose"] : [])
          ]
          if (expected.length === 0) {
            expect(Result.getOrThrow(again).id).toBe(first.id)
          } else {
            expect(Result.isFailure(again)).toBe(true)
            expect(Result.getFailure(again).pipe(Option.getOrThrow)).toMatchObject({
              _tag: "MediaVersionConflict",
              changed: expected
            })
          }
          // No new work either way, and the second upload's staged file is gone.
          yield* work
          expect(world.processed.length).toBe(change.processedFirst ? calls : 1)
          expect(world.staged.files()).toEqual([])
        })
      ),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("a company's images are processed one at a time in upload order; another company's run alongside", () =>
    inWorld((world) =>
      Effect.gen(function* () {
        const a = yield* tenant()
        const b = yield* tenant()
        const a1 = yield* upload(a, fields("a1"), picture("a1"))
        yield* upload(b, fields("b1"), picture("b1"))
        // Another connection of company a: still one at a time for the company.
        const a2 = yield* upload(yield* anotherKey(a, { newConnection: true }), fields("a2"), picture("a2"))
        yield* upload(a, fields("a3"), picture("a3", 3000, 1000))
        const first = Option.getOrThrow(yield* claim("w1"))
        const second = Option.getOrThrow(yield* claim("w2"))
        expect([first.id, second.kind]).toEqual([a1.id, "media"])
        expect(second.companyId).toBe(b.company.id)
        expect(Option.isNone(yield* claim("w3"))).toBe(true)
        const media = yield* MediaService
        yield* media.process(first, "w1")
        yield* media.process(second, "w2")
        expect(Option.getOrThrow(yield* claim("w1")).id).toBe(a2.id)
        expect(Option.isNone(yield* claim("w2"))).toBe(true)
        yield* Effect.flatMap(JobStore, (jobs) => jobs.release(a2.id, "w1", "now"))
        yield* work
        expect(world.processed).toEqual(["img:a1", "img:b1", "img:a2", "img:a3"])
        const listed = yield* Effect.flatMap(MediaService, (m) => m.list({ limit: 10, external_id: "a3" })).pipe(as(a))
        expect(listed.records[0]).toMatchObject({ state: "completed", width: 1500, height: 500 })
        expect(world.staged.files()).toEqual([])
      })
    )
  )

  it.effect(
    "processing that outlives the time limit fails the job with processing_timeout and keeps the image staged for a retry",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const who = yield* tenant()
          world.stalled.add("img:slow")
          const slow = yield* upload(who, fields("slow"), picture("slow"))
          const running = yield* Effect.forkChild(work)
          yield* TestClock.adjust("119 seconds")
          expect(yield* jobState(who, slow.id)).toBe("running")
          yield* TestClock.adjust("1 second")
          yield* Fiber.join(running)
          const detail = yield* Effect.flatMap(JobService, (jobs) => jobs.get(slow.id)).pipe(as(who))
          expect(detail.job).toMatchObject({
            state: "failed",
            failure: { code: "processing_timeout", message: expect.stringContaining("2m") }
          })
          expect(world.staged.files()).toHaveLength(1)
          world.stalled.clear()
          yield* Effect.flatMap(JobService, (jobs) => jobs.retry(slow.id)).pipe(as(who))
          yield* work
          expect(yield* jobState(who, slow.id)).toBe("completed")
          expect(world.processed).toEqual(["img:slow", "img:slow"])
          expect(world.staged.files()).toEqual([])
        })
      )
  )

  it.effect(
    "an upload whose staged file vanished before processing fails with image_corrupt, not as a storage fault",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const job = yield* upload(who, fields("lost"), picture("lost"))
          const [key] = world.staged.files()
          yield* Effect.flatMap(MediaStaging, (staging) => staging.remove(key!))
          yield* work
          expect(yield* jobState(who, job.id)).toBe("failed")
          const detail = yield* Effect.flatMap(JobService, (jobs) => jobs.get(job.id)).pipe(as(who))
          expect(detail.job.failure).toMatchObject({
            code: "image_corrupt",
            message: expect.stringContaining("upload the image again")
          })
          expect(world.processed).toEqual([])
        })
      )
  )

  it.effect(
    "a storage refusal pauses the job and only its company's processing; a retry resumes in upload order, each image written once",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const a = yield* tenant()
          const b = yield* tenant()
          world.denied.add(a.company.storage_slug)
          const a1 = yield* upload(a, fields("a1"), picture("a1"))
          const a2 = yield* upload(a, fields("a2"), picture("a2"))
          const b1 = yield* upload(b, fields("b1"), picture("b1"))
          yield* work
          expect(yield* jobState(a, a1.id)).toBe("paused")
          expect(yield* jobState(a, a2.id)).toBe("queued")
          expect(yield* jobState(b, b1.id)).toBe("completed")
          const a3 = yield* upload(a, fields("a3"), picture("a3"))
          yield* work
          expect(yield* jobState(a, a3.id)).toBe("queued")
          expect(world.processed).toEqual(["img:a1", "img:b1"])
          // Retrying while still refused pauses again; once fixed, everything completes in order.
          yield* Effect.flatMap(JobService, (jobs) => jobs.retry(a1.id)).pipe(as(a))
          yield* work
          expect(yield* jobState(a, a1.id)).toBe("paused")
          world.denied.delete(a.company.storage_slug)
          const retried = yield* Effect.flatMap(JobService, (jobs) => jobs.retry(a1.id)).pipe(as(a))
          expect(retried).toMatchObject({ state: "queued", run: 3 })
          yield* work
          expect(yield* Effect.forEach([a1, a2, a3], (job) => jobState(a, job.id))).toEqual([
            "completed",
            "completed",
            "completed"
          ])
          // a1 was processed once per run (its writes were refused twice); every image was written once.
          expect(world.processed).toEqual(["img:a1", "img:b1", "img:a1", "img:a1", "img:a2", "img:a3"])
          expect(world.written).toHaveLength(4)
          expect(new Set(world.written).size).toBe(4)
          expect(world.staged.files()).toEqual([])
        })
      )
  )

  it.effect(
    "an operator lists a company's paused jobs (of every connection) and resumes them after a storage check; a failing check resumes nothing",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const a = yield* tenant()
          const shop = yield* anotherKey(a, { newConnection: true })
          const b = yield* tenant()
          world.denied.add(a.company.storage_slug)
          const a1 = yield* upload(a, fields("a1"), picture("a1"))
          const s1 = yield* upload(shop, fields("s1"), picture("s1"))
          yield* work
          expect(yield* jobState(a, a1.id)).toBe("paused")
          const admin = yield* JobAdmin
          // Only a1 paused; s1 of the other connection waits behind it (one image at a time per company).
          expect((yield* admin.paused()).map((job) => [job.id, job.company_id, job.connection_id])).toEqual([
            [a1.id, a.company.id, a.connectionId]
          ])
          expect(yield* admin.paused(b.company.id)).toEqual([])
          const stillDenied = yield* Effect.flip(admin.resume(a.company.id))
          expect(stillDenied).toMatchObject({ _tag: "MediaStorageError", code: "storage_denied" })
          expect(stillDenied.message).toContain(a.company.storage_slug)
          expect(yield* jobState(a, a1.id)).toBe("paused")
          expect((yield* admin.resumeAll)[0]).toMatchObject({
            company_id: a.company.id,
            resumed: [],
            error: { code: "storage_denied" }
          })
          world.denied.delete(a.company.storage_slug)
          const audit = yield* AuditLog
          expect(yield* audit.list({ companyId: a.company.id, limit: 10 })).toEqual([])
          expect(yield* admin.resume(a.company.id).pipe(Effect.provideService(Actor, operator))).toEqual({
            company_id: a.company.id,
            resumed: [a1.id]
          })
          // The failed checks resumed nothing and recorded nothing; the resume is one entry by the operator.
          expect(yield* audit.list({ companyId: a.company.id, limit: 10 })).toEqual([
            expect.objectContaining({
              actor: "cli:ops",
              action: "job.resume",
              company_id: a.company.id,
              target: a.company.id,
              details: { resumed: "1" }
            })
          ])
          yield* work
          expect(yield* jobState(a, a1.id)).toBe("completed")
          expect(yield* jobState(shop, s1.id)).toBe("completed")
          expect(world.processed).toEqual(["img:a1", "img:a1", "img:s1"])
          expect(yield* admin.paused()).toEqual([])
          expect(yield* Effect.flip(admin.paused(uuid()))).toMatchObject({ _tag: "RecordNotFound" })
        })
      )
  )

  it.effect(
    "an operator's retry of a paused job is one audit entry by them; a job that cannot be retried records none",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const a = yield* tenant()
          world.denied.add(a.company.storage_slug)
          const a1 = yield* upload(a, fields("a1"), picture("a1"))
          yield* work
          world.denied.delete(a.company.storage_slug)
          const admin = yield* JobAdmin
          const retried = yield* admin.retry(a1.id).pipe(Effect.provideService(Actor, operator))
          expect(retried).toMatchObject({ id: a1.id, state: "queued", run: 2 })
          // Queued now: not retryable, and nothing more in the log.
          expect(yield* Effect.flip(admin.retry(a1.id))).toMatchObject({ _tag: "JobNotRetryable", state: "queued" })
          expect(
            yield* Effect.flatMap(AuditLog, (audit) => audit.list({ companyId: a.company.id, limit: 10 }))
          ).toEqual([
            expect.objectContaining({
              actor: "cli:ops",
              action: "job.retry",
              company_id: a.company.id,
              target: a1.id,
              details: { kind: "media", connection_id: a.connectionId, run: "2", from_state: "paused" }
            })
          ])
        })
      )
  )

  it.effect(
    "a media job whose key was revoked before it ran fails with key_revoked and keeps its image queued and staged; a retry with an active key completes it",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const job = yield* upload(who, fields("m1"), picture("m1"))
          yield* Effect.flatMap(Accounts, (accounts) => accounts.revokeKey(who.keyId, "2026-01-01T00:00:00.000Z"))
          yield* work
          const failed = yield* Effect.flatMap(JobService, (jobs) => jobs.get(job.id)).pipe(as(who))
          expect(failed.job).toMatchObject({ state: "failed", failure: { code: "key_revoked" } })
          expect(world.processed).toEqual([])
          const listed = yield* Effect.flatMap(MediaService, (m) => m.list({ limit: 10 })).pipe(as(who))
          expect(listed.records[0]).toMatchObject({ state: "queued" })
          expect(world.staged.files()).toHaveLength(1)
          const other = yield* anotherKey(who)
          yield* Effect.flatMap(JobService, (jobs) => jobs.retry(job.id)).pipe(as(other))
          yield* work
          expect(yield* jobState(other, job.id)).toBe("completed")
          expect(world.staged.files()).toEqual([])
        })
      )
  )

  it.effect("purpose is optional and defaults to catalog (spec 2.13 does not require it)", () =>
    inWorld(() =>
      Effect.gen(function* () {
        const who = yield* tenant()
        yield* upload(who, { external_id: "plain", name: "Plain" }, picture("plain", 3000, 2000))
        yield* work
        const listed = yield* Effect.flatMap(MediaService, (m) => m.list({ limit: 10 })).pipe(as(who))
        expect(listed.records[0]).toMatchObject({ purpose: "catalog", state: "completed", width: 1500, height: 1000 })
      })
    )
  )

  it.effect("a paused job can be retried even when the jobs queued behind it fill the pending limit", () =>
    inWorld((world) =>
      Effect.gen(function* () {
        const a = yield* tenant()
        world.denied.add(a.company.storage_slug)
        const first = yield* upload(a, fields("p0"), picture("p0"))
        yield* work
        for (let i = 1; i <= 20; i++) yield* upload(a, fields(`p${i}`), picture(`p${i}`))
        const refused = yield* Effect.flip(upload(a, fields("p21"), picture("p21")))
        expect(refused._tag).toBe("JobLimitReached")
        world.denied.clear()
        yield* Effect.flatMap(JobService, (jobs) => jobs.retry(first.id)).pipe(as(a))
        yield* work
        expect(world.processed).toEqual(["img:p0", ...Array.from({ length: 21 }, (_, i) => `img:p${i}`)])
        expect(world.staged.files()).toEqual([])
      })
    )
  )

  it.effect("the connection's staged bytes are limited to 100 MB; a refused upload keeps nothing staged", () =>
    inWorld((world) =>
      Effect.gen(function* () {
        const a = yield* tenant()
        const media = yield* MediaService
        // Staged sizes as the staging adapter reports them; the images themselves stay tiny.
        const claimedSize = (bytes: Uint8Array, size: number) =>
          Effect.map(stage(bytes), (staged): StagedFile => ({ ...staged, bytes: size }))
        const half = maxStagedBytesPerConnection / 2
        yield* media.upload(fields("h1"), yield* claimedSize(picture("h1"), half)).pipe(as(a))
        expect(yield* media.stagingAllowance.pipe(as(a))).toBe(half)
        yield* media.upload(fields("h2"), yield* claimedSize(picture("h2"), half)).pipe(as(a))
        expect(yield* media.stagingAllowance.pipe(as(a))).toBe(0)
        // Staging itself refuses once the allowance is used up, and keeps nothing of the refused file.
        const before = world.staged.files().length
        expect(yield* Effect.flip(media.stage(...chunksOf(Stream.make(picture("h4")))).pipe(as(a)))).toMatchObject({
          _tag: "StagingLimitReached"
        })
        expect(world.staged.files()).toHaveLength(before)
        const over = yield* claimedSize(picture("h3"), 1)
        const refused = yield* Effect.flip(media.upload(fields("h3"), over).pipe(as(a)))
        expect(refused).toMatchObject({ _tag: "StagingLimitReached", retry_after: 10 })
        expect(world.staged.files()).not.toContain(over.key)
        expect(world.staged.files()).toHaveLength(2)
        // Another connection has its own allowance.
        const other = { ...a, connectionId: uuid() as Principal["connectionId"] }
        expect(yield* media.stagingAllowance.pipe(as(other))).toBe(maxStagedBytesPerConnection)
        yield* work
        expect(yield* media.stagingAllowance.pipe(as(a))).toBe(maxStagedBytesPerConnection)
        yield* media.upload(fields("h3"), yield* claimedSize(picture("h3"), 1)).pipe(as(a))
      })
    )
  )

  it.effect("every refusal of an upload leaves nothing staged, and no media item", () =>
    inWorld((world) =>
      Effect.gen(function* () {
        const a = yield* tenant()
        const reader = principal(a.company, ["media:read"], a.connectionId)
        yield* upload(a, fields("taken"), picture("taken"))
        yield* work
        const refusals: ReadonlyArray<readonly [string, Effect.Effect<unknown, { readonly code: string }, Services>]> =
          [
            ["unsupported_image_format", upload(a, fields("x1"), new TextEncoder().encode("GIF89a not accepted"))],
            [
              "image_corrupt",
              upload(a, fields("x2"), Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]))
            ],
            ["image_too_many_pixels", upload(a, fields("x3"), picture("x3", 8000, 5001))],
            ["validation_failed", upload(a, { ...fields("x4"), purpose: "banner" }, picture("x4"))],
            ["validation_failed", upload(a, { ...fields("x5"), colour: "red" }, picture("x5"))],
            [
              "remote_url_not_accepted",
              upload(a, { ...fields("x6"), url: "https://example.com/a.jpg" }, picture("x6"))
            ],
            [
              "remote_url_not_accepted",
              upload(a, fields("x7"), new TextEncoder().encode("https://example.com/sofa.jpg"))
            ],
            ["media_version_immutable", upload(a, fields("taken"), picture("other"))],
            ["insufficient_scope", upload(reader, fields("x8"), picture("x8"))]
          ]
        for (const [code, attempt] of refusals) {
          expect((yield* Effect.flip(attempt)).code).toBe(code)
          expect(world.staged.files()).toEqual([])
        }
        // A reuse of the completed version keeps nothing staged either.
        yield* upload(a, fields("taken"), picture("taken"))
        expect(world.staged.files()).toEqual([])
        const page = yield* Effect.flatMap(MediaService, (m) => m.list({ limit: 10 })).pipe(as(a))
        expect(page.records.map((r) => r.external_id)).toEqual(["taken"])
        expect(world.processed).toEqual(["img:taken"])
      })
    )
  )

  it.effect("the staging sweep removes old files no waiting item references, and keeps young and referenced ones", () =>
    inWorld((world) =>
      Effect.gen(function* () {
        const a = yield* tenant()
        world.denied.add(a.company.storage_slug)
        world.staged.plant("crashed.upload", picture("lost"), 0)
        yield* upload(a, fields("waiting"), picture("waiting"))
        yield* work
        yield* TestClock.adjust(stagingGraceMillis + 1)
        world.staged.plant("streaming.upload", picture("young"), stagingGraceMillis + 1)
        const referenced = world.staged.files().filter((key) => key !== "crashed.upload" && key !== "streaming.upload")
        expect(referenced).toHaveLength(1)
        // A file that cannot be removed does not keep the others.
        world.staged.plant("stuck.upload", picture("stuck"), 0)
        const stuck = MediaStaging.of({
          ...world.staged.staging,
          remove: (key) =>
            key === "stuck.upload"
              ? Effect.fail(new MediaStorageError({ reason: "denied", message: "read-only" }))
              : world.staged.staging.remove(key)
        })
        expect(yield* Effect.provideService(sweepStaging(), MediaStaging, stuck)).toBe(1)
        expect(world.staged.files().sort()).toEqual([...referenced, "streaming.upload", "stuck.upload"].sort())
        expect(yield* sweepStaging()).toBe(1)
        expect(world.staged.files().sort()).toEqual([...referenced, "streaming.upload"].sort())
        // The paused item's file is still there, so the retry completes it.
        world.denied.clear()
        const job = (yield* Effect.flatMap(MediaService, (m) => m.list({ limit: 1 })).pipe(as(a))).records[0]!.job_id
        yield* Effect.flatMap(JobService, (jobs) => jobs.retry(job)).pipe(as(a))
        yield* work
        expect(yield* jobState(a, job)).toBe("completed")
        expect(world.staged.files()).toEqual(["streaming.upload"])
      })
    )
  )
  it.effect(
    "an upload whose key is revoked, or loses media:write, while its file streams is refused where it commits and keeps nothing",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const registered = yield* tenant()
          // As the HTTP API makes it: a principal from a presented key.
          const who: Principal = {
            ...registered,
            key: { expiresAt: "2999-01-01T00:00:00.000Z", scopes: ["media:write"] }
          }
          const accounts = yield* Accounts
          const staged = yield* stage(picture("late"))
          yield* accounts.revokeKey(who.keyId, "2026-01-01T00:00:00.000Z")
          const refused = yield* Effect.flip(
            Effect.flatMap(MediaService, (media) => media.upload(fields("late"), staged)).pipe(as(who))
          )
          expect(refused).toMatchObject({ _tag: "Unauthenticated", reason: "key_revoked" })
          const other = yield* anotherKey(registered)
          const narrowed: Principal = {
            ...other,
            key: { expiresAt: "2999-01-01T00:00:00.000Z", scopes: ["media:read"] }
          }
          const denied = yield* Effect.flip(upload(narrowed, fields("narrow"), picture("narrow")))
          expect(denied).toMatchObject({ _tag: "ScopeDenied", required: ["media:write"] })
          expect(world.staged.files()).toEqual([])
          const listed = yield* Effect.flatMap(MediaService, (m) => m.list({ limit: 10 })).pipe(as(other))
          expect(listed.records).toEqual([])
        })
      )
  )

  it.effect(
    "a failed job keeps its image staged for a retry for a day; then it is removed, the item fails and stops counting toward the staging limit, and the same upload restarts the job",
    () =>
      inWorld((world) =>
        Effect.gen(function* () {
          const who = yield* tenant()
          const job = yield* upload(who, fields("m1"), picture("m1"))
          yield* Effect.flatMap(Accounts, (accounts) => accounts.revokeKey(who.keyId, "2026-01-01T00:00:00.000Z"))
          yield* work
          expect(yield* jobState(who, job.id)).toBe("failed")
          const media = yield* MediaService
          const stagedBytes = Effect.flatMap(MediaRepository, (repository) =>
            repository.stagedBytes(who.company.id, who.connectionId)
          )
          yield* TestClock.adjust("23 hours")
          expect(yield* media.releaseFailedUploads()).toBe(0)
          expect(world.staged.files()).toHaveLength(1)
          expect(yield* stagedBytes).toBeGreaterThan(0)
          yield* TestClock.adjust("2 hours")
          expect(yield* media.releaseFailedUploads()).toBe(1)
          expect(world.staged.files()).toEqual([])
          expect(yield* stagedBytes).toBe(0)
          const other = yield* anotherKey(who)
          const [item] = (yield* media.list({ limit: 10 }).pipe(as(other))).records
          expect(item).toMatchObject({ state: "failed", failure: { code: "key_revoked" }, revision: 2 })
          expect(item!.failure!.message).toContain("upload the image again")
          expect(yield* media.releaseFailedUploads()).toBe(0)
          const restarted = yield* upload(other, fields("m1"), picture("m1"))
          expect(restarted).toMatchObject({ id: job.id, state: "queued", run: 2 })
          expect(yield* stagedBytes).toBeGreaterThan(0)
          yield* work
          expect(yield* jobState(other, job.id)).toBe("completed")
          expect((yield* media.list({ limit: 10 }).pipe(as(other))).records[0]).toMatchObject({ state: "completed" })
          expect(world.staged.files()).toEqual([])
        })
      )
  )
})
