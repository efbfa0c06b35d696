import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync, readdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import sharp from "sharp"
import { ServerLive } from "../src/Server.js"
import { at, detailPaths, record, records, str } from "./Json.js"
import { makeMediaFaults, sha } from "./MediaFaults.js"
import { call, freshKey, TestServer, TestServerWith, waitJob } from "./TestServer.js"

const { crashing, denied, layer: withFaults, processed, stalled, written } = makeMediaFaults()

const scopes = ["catalog:read", "catalog:write", "media:read", "media:write"]

const upload = (url: string, token: string, fields: Record<string, string>, file: Uint8Array) =>
  Effect.promise(async () => {
    const form = new FormData()
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    form.append("file", new Blob([file]), "image.bin")
    const response = await fetch(`${url}/api/v1/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": freshKey() },
      body: form
    })
    const text = await response.text()
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: text === "" ? undefined : JSON.parse(text)
    }
  })

const jobOf = (url: string, token: string, id: string) =>
  Effect.map(call(url, "GET", `/jobs/${id}`, { token }), (reply) => record(reply.body, "job"))

const image = (width: number, height: number, seed: number) =>
  Effect.promise(
    async () =>
      new Uint8Array(
        await sharp({ create: { width, height, channels: 3, background: { r: seed % 256, g: 80, b: 160 } } })
          .png()
          .toBuffer()
      )
  )

/** A valid PNG header followed by `size` bytes in total (data after the image end, which decoders skip). */
const padded = (png: Uint8Array, size: number, seed: number) => {
  const out = new Uint8Array(size)
  out.set(png)
  for (let i = png.length; i < size; i += 4096) out[i] = (i + seed) % 251
  return out
}

const stagedFiles = (dataDir: string) =>
  existsSync(join(dataDir, "staging")) ? readdirSync(join(dataDir, "staging")) : []

/** The staged files once at most `count` are left: a worker removes an item's file just after recording it done. */
const stagedSettled = (dataDir: string, count = 0) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200 && stagedFiles(dataDir).length > count; i++) yield* Effect.sleep("25 millis")
    return stagedFiles(dataDir)
  })

layer(TestServerWith({ media: withFaults }, { MEDIA_PROCESSING_TIMEOUT_SECONDS: "2" }), {
  excludeTestServices: true,
  timeout: 120_000
})("media faults end to end", (it) => {
  describe("image processor faults", () => {
    it.effect(
      "an image whose processing stalls fails its job with processing_timeout, one that crashes with internal_error; later images go on; a retry completes each once the fault is gone",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(scopes)
          const [slow, broken, fine] = yield* Effect.forEach([11, 12, 13], (seed) => image(30, 20 + seed, seed))
          stalled.add(sha(slow!))
          crashing.add(sha(broken!))
          const uploads = yield* Effect.forEach(
            [
              ["slow", slow!],
              ["broken", broken!],
              ["fine", fine!]
            ] as const,
            ([name, file]) => upload(url, token, { external_id: name, name, purpose: "catalog" }, file)
          )
          const [slowJob, brokenJob, fineJob] = yield* Effect.forEach(uploads, (r) =>
            waitJob(url, token, str(r.body, "job", "id"))
          )
          expect(slowJob).toMatchObject({ state: "failed", failure: { code: "processing_timeout" } })
          expect(slowJob.failure?.message).toContain("2s")
          expect(brokenJob).toMatchObject({ state: "failed", failure: { code: "internal_error" } })
          expect(fineJob?.state).toBe("completed")
          // Both images are still staged and their media queued: a retry needs no new upload.
          const states = records((yield* call(url, "GET", "/media", { token })).body).map((m) => [
            m.external_id,
            m.state
          ])
          expect(states).toEqual([
            ["slow", "queued"],
            ["broken", "queued"],
            ["fine", "completed"]
          ])
          stalled.clear()
          crashing.clear()
          for (const r of uploads.slice(0, 2)) {
            expect((yield* call(url, "POST", `/jobs/${str(r.body, "job", "id")}/retry`, { token })).status).toBe(202)
            expect((yield* waitJob(url, token, str(r.body, "job", "id"))).state).toBe("completed")
          }
          const count = (picture: Uint8Array) => processed.filter((h) => h === sha(picture)).length
          expect([slow!, broken!, fine!].map(count)).toEqual([2, 2, 1])
          expect(records((yield* call(url, "GET", "/media", { token })).body).map((m) => m.state)).toEqual([
            "completed",
            "completed",
            "completed"
          ])
        })
    )
  })

  describe("paused and retry", () => {
    it.effect(
      "a storage refusal pauses the job and holds back only its company's images; a retry completes them in upload order, none lost or written twice",
      () =>
        Effect.gen(function* () {
          const { url, tenant, dataDir } = yield* TestServer
          const slug = `paused-${Date.now()}`
          const a = yield* tenant({ storage_slug: slug })
          const b = yield* tenant()
          const tokenA = yield* a.key(scopes)
          const tokenB = yield* b.key(scopes)
          const pictures = yield* Effect.forEach([1, 2, 3, 4], (seed) => image(40 + seed, 30, seed))
          denied.add(slug)
          const a1 = yield* upload(url, tokenA, { external_id: "a1", name: "A1", purpose: "catalog" }, pictures[0]!)
          const a2 = yield* upload(url, tokenA, { external_id: "a2", name: "A2", purpose: "catalog" }, pictures[1]!)
          const b1 = yield* upload(url, tokenB, { external_id: "b1", name: "B1", purpose: "catalog" }, pictures[2]!)
          expect([a1.status, a2.status, b1.status]).toEqual([202, 202, 202])
          const paused = yield* waitJob(url, tokenA, str(a1.body, "job", "id"))
          expect(paused).toMatchObject({ state: "paused", failure: { code: "storage_denied" }, counts: { pending: 1 } })
          expect((yield* waitJob(url, tokenB, str(b1.body, "job", "id"))).state).toBe("completed")
          // While paused, the company's later uploads wait.
          const a3 = yield* upload(url, tokenA, { external_id: "a3", name: "A3", purpose: "catalog" }, pictures[3]!)
          yield* Effect.sleep("600 millis")
          expect((yield* jobOf(url, tokenA, str(a2.body, "job", "id"))).state).toBe("queued")
          expect((yield* jobOf(url, tokenA, str(a3.body, "job", "id"))).state).toBe("queued")
          expect(yield* stagedSettled(dataDir, 3)).toHaveLength(3)
          expect(processed.filter((h) => h === sha(pictures[1]!) || h === sha(pictures[3]!))).toEqual([])

          // Retrying before the fault is fixed pauses again.
          const early = yield* call(url, "POST", `/jobs/${str(a1.body, "job", "id")}/retry`, { token: tokenA })
          expect(early.status).toBe(202)
          expect((yield* waitJob(url, tokenA, str(a1.body, "job", "id"), ["paused"])).run).toBe(2)
          const reader = yield* a.key(["media:read"])
          expect(
            at(
              (yield* call(url, "POST", `/jobs/${str(a1.body, "job", "id")}/retry`, { token: reader })).body,
              "error",
              "code"
            )
          ).toBe("insufficient_scope")

          denied.delete(slug)
          const retried = yield* call(url, "POST", `/jobs/${str(a1.body, "job", "id")}/retry`, { token: tokenA })
          expect(retried.status).toBe(202)
          expect(at(retried.body, "job")).toMatchObject({ state: "queued", run: 3 })
          const done = yield* Effect.forEach([a1, a2, a3], (r) => waitJob(url, tokenA, str(r.body, "job", "id")))
          expect(done.map((j) => j.state)).toEqual(["completed", "completed", "completed"])
          expect(str(done[1], "started_at") >= str(done[0], "finished_at")).toBe(true)
          expect(str(done[2], "started_at") >= str(done[1], "finished_at")).toBe(true)
          // a1 was processed on each of its three runs (two writes refused); every other image once.
          const count = (picture: Uint8Array) => processed.filter((h) => h === sha(picture)).length
          expect(pictures.map(count)).toEqual([3, 1, 1, 1])
          expect(written.filter((w) => w.startsWith(`${slug}/`))).toHaveLength(3)
          expect(new Set(written).size).toBe(written.length)
          expect(readdirSync(join(dataDir, "media", slug))).toHaveLength(3)
          expect(yield* stagedSettled(dataDir)).toEqual([])
        })
    )
  })

  describe("staging limit", () => {
    it.effect(
      "past 100 MB staged by a connection, uploads get 429 staging_limit_reached with Retry-After and stage nothing",
      () =>
        Effect.gen(function* () {
          const { url, tenant, dataDir } = yield* TestServer
          const slug = `held-${Date.now()}`
          const t = yield* tenant({ storage_slug: slug })
          const token = yield* t.key(scopes)
          denied.add(slug)
          const first = yield* upload(
            url,
            token,
            { external_id: "first", name: "First", purpose: "catalog" },
            yield* image(20, 20, 1)
          )
          expect((yield* waitJob(url, token, str(first.body, "job", "id"))).state).toBe("paused")
          // Ten uploads just under 10 MB each: 100 MB minus 640 KB staged, all waiting behind the paused job.
          const png = yield* image(16, 16, 2)
          const big = 10 * 1024 * 1024 - 64 * 1024
          for (let i = 0; i < 10; i++) {
            const reply = yield* upload(
              url,
              token,
              { external_id: `big-${i}`, name: `Big ${i}`, purpose: "catalog" },
              padded(png, big, i)
            )
            expect(reply.status).toBe(202)
          }
          expect(stagedFiles(dataDir)).toHaveLength(11)
          const refused = yield* upload(
            url,
            token,
            { external_id: "over", name: "Over", purpose: "catalog" },
            padded(png, 1024 * 1024, 99)
          )
          expect(refused.status).toBe(429)
          expect(at(refused.body, "error")).toMatchObject({ code: "staging_limit_reached", retry_after: 10 })
          expect(refused.retryAfter).toBe("10")
          expect(stagedFiles(dataDir)).toHaveLength(11)
          // Another connection of the company has its own allowance.
          const other = yield* t.key(scopes, { connectionId: yield* t.newConnection })
          const small = yield* upload(
            url,
            other,
            { external_id: "small", name: "Small", purpose: "catalog" },
            yield* image(10, 10, 3)
          )
          expect(small.status).toBe(202)
          denied.delete(slug)
          yield* call(url, "POST", `/jobs/${str(first.body, "job", "id")}/retry`, { token })
          const list = yield* call(url, "GET", "/jobs?limit=20", { token })
          yield* Effect.forEach(records(list.body), (job) =>
            waitJob(url, token, str(job, "id"), ["completed", "failed"])
          )
          const again = yield* upload(
            url,
            token,
            { external_id: "over", name: "Over", purpose: "catalog" },
            padded(png, 1024 * 1024, 99)
          )
          expect(again.status).toBe(202)
          yield* waitJob(url, token, str(again.body, "job", "id"), ["completed", "failed"])
          yield* waitJob(url, other, str(small.body, "job", "id"), ["completed", "failed"])
          expect(yield* stagedSettled(dataDir)).toEqual([])
        })
    )
  })

  describe("linking and leftovers", () => {
    it.effect(
      "media that is not completed cannot be linked from any field (422); a restart removes old staged files no item references",
      () =>
        Effect.gen(function* () {
          const { config, dataDir, tenant, url } = yield* TestServer
          const slug = `linking-${Date.now()}`
          const t = yield* tenant({ storage_slug: slug })
          const token = yield* t.key(scopes)
          denied.add(slug)
          const waiting = yield* upload(
            url,
            token,
            { external_id: "waiting", name: "Waiting", purpose: "catalog" },
            yield* image(12, 12, 5)
          )
          const job = yield* waitJob(url, token, str(waiting.body, "job", "id"))
          expect(job.state).toBe("paused")
          const mediaId = str(
            (yield* call(url, "GET", "/media?external_id=waiting", { token })).body,
            "records",
            0,
            "id"
          )
          const write = (resource: string, body: Record<string, unknown>) =>
            call(url, "POST", `/${resource}/upsert`, { token, body })
          expect((yield* write("categories", { external_id: "c", name: "C" })).status).toBe(200)
          expect((yield* write("customization-types", { external_id: "t", name: "Fabric" })).status).toBe(200)
          expect(
            (yield* write("customization-groups", { external_id: "g", name: "Book", type_id: { external_id: "t" } }))
              .status
          ).toBe(200)
          const attempts: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
            [
              "products",
              {
                external_id: "p1",
                name: "P",
                category_ids: [{ external_id: "c" }],
                media_ids: [{ external_id: "waiting" }]
              },
              "$.media_ids[0]"
            ],
            [
              "products",
              { external_id: "p2", name: "P", category_ids: [{ external_id: "c" }], media_ids: [mediaId] },
              "$.media_ids[0]"
            ],
            [
              "products",
              {
                external_id: "p3",
                name: "P",
                category_ids: [{ external_id: "c" }],
                cover_id: { external_id: "waiting" }
              },
              "$.cover_id"
            ],
            ["categories", { external_id: "c2", name: "C2", image_id: mediaId }, "$.image_id"],
            ["brands", { external_id: "b", name: "B", image_id: { external_id: "waiting" } }, "$.image_id"],
            ["collections", { external_id: "k", name: "K", image_id: mediaId }, "$.image_id"],
            [
              "customization-options",
              { external_id: "o", name: "Red", group_id: { external_id: "g" }, media_id: { external_id: "waiting" } },
              "$.media_id"
            ]
          ]
          for (const [resource, body, path] of attempts) {
            const reply = yield* write(resource, body)
            expect([resource, reply.status, at(reply.body, "error", "code")]).toEqual([
              resource,
              422,
              "unresolved_reference"
            ])
            expect(detailPaths(reply.body)).toContain(path)
          }

          // A crash left two staged files: one old, one still young (an upload may be streaming).
          const staging = join(dataDir, "staging")
          const [referenced] = stagedFiles(dataDir)
          expect(referenced).toBeDefined()
          const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)
          writeFileSync(join(staging, "00000000-0000-0000-0000-000000000000.upload"), "left by a crash")
          writeFileSync(join(staging, "11111111-1111-1111-1111-111111111111.upload"), "still streaming")
          utimesSync(join(staging, "00000000-0000-0000-0000-000000000000.upload"), hoursAgo(3), hoursAgo(3))
          utimesSync(join(staging, referenced!), hoursAgo(3), hoursAgo(3))
          // Another instance starting on the same data sweeps the staging folder.
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* Layer.build(ServerLive(config, { media: withFaults }))
              for (let i = 0; i < 200 && stagedFiles(dataDir).length > 2; i++) yield* Effect.sleep("25 millis")
            })
          )
          expect(stagedFiles(dataDir).sort()).toEqual(
            [referenced, "11111111-1111-1111-1111-111111111111.upload"].sort()
          )
          // The kept file is the waiting item's: once the storage is fixed, its retry completes.
          denied.delete(slug)
          yield* call(url, "POST", `/jobs/${job.id}/retry`, { token })
          expect((yield* waitJob(url, token, job.id, ["completed", "failed"])).state).toBe("completed")
          const linked = yield* write("brands", { external_id: "b", name: "B", image_id: { external_id: "waiting" } })
          expect(linked.status).toBe(200)
        })
    )
  })
})
