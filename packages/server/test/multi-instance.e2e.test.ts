import { layer as pgPorts } from "@catalog-sync/adapter-pg"
import { cluster, database, unavailableReason } from "@catalog-sync/adapter-pg/testing"
import { startS3 } from "@catalog-sync/adapter-storage-s3/testing"
import { Admin, Ids } from "@catalog-sync/core"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Redacted } from "effect"
import sharp from "sharp"
import { buildServer, startInstance } from "./Instances.js"
import { at, type JsonObject, num, record, records, str } from "./Json.js"
import { call, earlyInMinute, freshKey, type Reply } from "./TestServer.js"

const skip = unavailableReason()
if (skip !== undefined) console.warn(`\n*** ${skip} ***\n`)

/** Two server processes on one PostgreSQL database and one S3 bucket (media), and admin access to the database. */
class Instances extends Context.Service<
  Instances,
  {
    readonly a: string
    readonly b: string
    readonly token: (scopes: ReadonlyArray<string>) => Effect.Effect<string, unknown>
  }
>()("Instances") {}

const InstancesLive = Layer.effect(
  Instances,
  Effect.gen(function* () {
    const url = yield* Effect.flatMap(cluster, database)
    const bundle = yield* buildServer
    const s3 = yield* startS3()
    const env = { DATABASE_URL: url, JOB_POLL_MILLISECONDS: "50", ...s3.env({ prefix: "media" }) }
    // Started together: both run the migrations of the empty database at once.
    const [a, b] = yield* Effect.all([startInstance(bundle, env), startInstance(bundle, env)], {
      concurrency: 2
    })
    const admin = Context.get(
      yield* Layer.build(
        Admin.Admin.Default.pipe(
          Layer.provide(pgPorts({ url: Redacted.make(url), poolSize: 2 })),
          Layer.provide(Ids.IdsLive)
        )
      ),
      Admin.Admin
    )
    let counter = 0
    const token = (scopes: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const company = yield* admin.createCompany({
          name: "Acme",
          currency: "EUR",
          main_language: "en",
          storage_slug: `multi-${++counter}-${Date.now()}`,
          granted_scopes: ["catalog:read", "catalog:write", "media:read", "media:write"]
        })
        const connection = yield* admin.createConnection(company.id, "ERP")
        return (yield* admin.createKey({ connection_id: connection.id, scopes, lifetime_days: 1 })).token
      })
    return { a: a.url, b: b.url, token }
  })
)

const writer = ["catalog:read", "catalog:write"]

const upsert = (url: string, token: string, body: Record<string, unknown>, idempotencyKey = freshKey()) =>
  call(url, "POST", "/categories/upsert", { token, body, idempotencyKey })

/** The categories under `externalId`, read through the instance at `url`. */
const categoriesWith = (url: string, token: string, externalId: string) =>
  Effect.map(call(url, "GET", `/categories?external_id=${encodeURIComponent(externalId)}`, { token }), (reply) =>
    records(reply.body)
  )

const summary = (replies: ReadonlyArray<Reply>) =>
  replies
    .map((r) =>
      r.status === 200
        ? `200 ${str(r.body, "outcome")}${at(r.body, "replayed") === true ? " replayed" : ""}`
        : `${r.status} ${String(at(r.body, "error", "code"))}`
    )
    .sort()

describe.skipIf(skip !== undefined)("several instances", () => {
  layer(InstancesLive, { excludeTestServices: true, timeout: 120_000 })(
    "two server processes on one PostgreSQL database",
    (it) => {
      it.effect("rate limits hold across instances: a key's 121st request in a minute gets 429 from either", () =>
        Effect.gen(function* () {
          const { a, b, token: newToken } = yield* Instances
          const token = yield* newToken(["catalog:read"])
          yield* earlyInMinute
          const replies = yield* Effect.all(
            Array.from({ length: 120 }, (_, i) => call(i % 2 === 0 ? a : b, "GET", "/me", { token })),
            { concurrency: 8 }
          )
          expect(replies.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([])
          for (const url of [a, b]) {
            const refused = yield* call(url, "GET", "/me", { token })
            expect({ status: refused.status, code: at(refused.body, "error", "code") }).toEqual({
              status: 429,
              code: "rate_limited"
            })
          }
        })
      )

      it.effect("idempotency holds across instances: one key sent to both writes once", () =>
        Effect.gen(function* () {
          const { a, b, token: newToken } = yield* Instances
          const token = yield* newToken(writer)
          const key = freshKey()
          const first = yield* upsert(a, token, { external_id: "one", name: "One" }, key)
          expect(first.status).toBe(200)
          const again = yield* upsert(b, token, { external_id: "one", name: "One" }, key)
          expect(again.body).toMatchObject({ outcome: "created", replayed: true, record: at(first.body, "record") })
          // At the same moment on both: one runs; the other waits its turn (409 in progress) or replays.
          const raceKey = freshKey()
          const replies = yield* Effect.all(
            [a, b, a, b].map((url) => upsert(url, token, { external_id: "two", name: "Two" }, raceKey)),
            { concurrency: "unbounded" }
          )
          expect(replies.filter((r) => r.status === 200 && at(r.body, "replayed") !== true)).toHaveLength(1)
          for (const r of replies)
            if (r.status !== 200) expect(at(r.body, "error", "code")).toBe("idempotency_in_progress")
          const stored = yield* categoriesWith(b, token, "two")
          expect(stored.map((r) => r.revision)).toEqual([1])
        })
      )

      it.effect(
        "concurrent updates with one expected_revision from both instances: one success per revision, never a lost update",
        () =>
          Effect.gen(function* () {
            const { a, b, token: newToken } = yield* Instances
            const token = yield* newToken(writer)
            expect((yield* upsert(a, token, { external_id: "sofa", name: "rev 1" })).status).toBe(200)
            for (let revision = 1; revision <= 5; revision++) {
              const replies = yield* Effect.all(
                [a, b, a, b].map((url, i) =>
                  upsert(url, token, {
                    external_id: "sofa",
                    expected_revision: revision,
                    name: `rev ${revision + 1} by ${i}`
                  })
                ),
                { concurrency: "unbounded" }
              )
              expect(summary(replies)).toEqual([
                "200 updated",
                "409 revision_conflict",
                "409 revision_conflict",
                "409 revision_conflict"
              ])
              const winner = replies.find((r) => r.status === 200)!
              expect(at(winner.body, "record", "revision")).toBe(revision + 1)
              for (const loser of replies.filter((r) => r.status === 409)) {
                expect(at(loser.body, "error", "details")).toMatchObject({ current_revision: revision + 1 })
              }
              // What is stored is the winner's write, read back through the other instance too.
              const [stored] = yield* categoriesWith(revision % 2 === 0 ? a : b, token, "sofa")
              expect({ revision: at(stored, "revision"), name: at(stored, "name") }).toEqual({
                revision: revision + 1,
                name: at(winner.body, "record", "name")
              })
            }
          })
      )

      it.effect(
        "media uploaded through either instance is processed by the workers of both, one image at a time per company, in upload order",
        () =>
          Effect.gen(function* () {
            const { a, b, token: newToken } = yield* Instances
            const media = ["media:read", "media:write"]
            const companies = [yield* newToken(media), yield* newToken(media)]
            const picture = (i: number) =>
              Effect.promise(
                async () =>
                  new Uint8Array(
                    await sharp({
                      create: {
                        width: 200 + i * 10,
                        height: 150,
                        channels: 3,
                        background: { r: i * 20, g: 80, b: 140 }
                      }
                    })
                      .jpeg()
                      .toBuffer()
                  )
              )
            const upload = (url: string, token: string, externalId: string, file: Uint8Array) =>
              Effect.promise(async () => {
                const form = new FormData()
                for (const [k, v] of Object.entries({ external_id: externalId, name: externalId, purpose: "catalog" }))
                  form.append(k, v)
                form.append("file", new Blob([file]), "image.jpg")
                const response = await fetch(`${url}/api/v1/media`, {
                  method: "POST",
                  headers: { authorization: `Bearer ${token}`, "idempotency-key": freshKey() },
                  body: form
                })
                expect(response.status).toBe(202)
                return ((await response.json()) as { job: { id: string } }).job.id
              })
            // Two companies upload at once, each alternating between the instances.
            const jobs = yield* Effect.all(
              companies.map((token) =>
                Effect.forEach([0, 1, 2, 3], (i) =>
                  Effect.flatMap(picture(i), (file) => upload(i % 2 === 0 ? a : b, token, `img-${i}`, file))
                )
              ),
              { concurrency: 2 }
            )
            for (const [c, token] of companies.entries()) {
              const done: Array<JsonObject> = []
              for (const id of jobs[c]!) {
                for (let tries = 0; ; tries++) {
                  const job = record(
                    (yield* call(tries % 2 === 0 ? a : b, "GET", `/jobs/${id}`, { token })).body,
                    "job"
                  )
                  if (job.state !== "queued" && job.state !== "running") {
                    done.push(job)
                    break
                  }
                  if (tries > 600) throw new Error(`job ${id} did not finish`)
                  yield* Effect.sleep("25 millis")
                }
              }
              expect(done.map((j) => j.state)).toEqual(["completed", "completed", "completed", "completed"])
              for (let i = 1; i < done.length; i++)
                expect(str(done[i], "started_at") >= str(done[i - 1], "finished_at"), JSON.stringify(done)).toBe(true)
              // Every processed file is readable through either instance.
              const media = records((yield* call(a, "GET", "/media?limit=10", { token })).body)
              expect(media.map((r) => r.external_id)).toEqual(["img-0", "img-1", "img-2", "img-3"])
              for (const [i, item] of media.entries()) {
                const response = yield* Effect.promise(() =>
                  fetch(`${i % 2 === 0 ? b : a}/api/v1/media/${str(item, "id")}/content`, {
                    headers: { authorization: `Bearer ${token}` }
                  })
                )
                expect(response.status).toBe(200)
                expect((yield* Effect.promise(() => response.arrayBuffer())).byteLength).toBe(item.bytes)
              }
            }
          })
      )

      it.effect(
        "a reader following next_cursor through both instances while both write is never refused a cursor and sees every change once, in order",
        () =>
          Effect.gen(function* () {
            const { a, b, token: newToken } = yield* Instances
            const token = yield* newToken(writer)
            let writing = true
            const seen: Array<string> = []
            // Each page through the other instance than the one that handed out its cursor.
            const follow = Effect.gen(function* () {
              let cursor: string | undefined
              for (let n = 0; ; n++) {
                const finished = !writing
                const query: string = cursor === undefined ? "limit=5" : `limit=5&cursor=${cursor}`
                const page = yield* call(n % 2 === 0 ? a : b, "GET", `/changes?${query}`, { token })
                expect({ status: page.status, error: at(page.body, "error") }).toEqual({
                  status: 200,
                  error: undefined
                })
                seen.push(...records(page.body).map((r) => `${str(r, "id")}@${num(r, "revision")}`))
                cursor = str(page.body, "next_cursor")
                if (finished && at(page.body, "has_more") !== true) return
              }
            })
            const writes = (w: number) =>
              Effect.forEach(
                Array.from({ length: 10 }, (_, i) => i),
                (i) =>
                  upsert(i % 2 === 0 ? a : b, token, {
                    external_id: `w${w}-${i % 2}`,
                    name: `v${i}`,
                    ...(i >= 2 ? { expected_revision: Math.floor(i / 2) } : {})
                  }).pipe(Effect.tap((reply) => Effect.sync(() => expect(reply.status).toBe(200)))),
                { discard: true }
              )
            const reader = yield* Effect.forkChild(follow)
            yield* Effect.forEach([0, 1, 2, 3, 4, 5], writes, { concurrency: "unbounded", discard: true })
            writing = false
            yield* Fiber.join(reader)
            const all = records((yield* call(a, "GET", "/changes?limit=100", { token })).body).map(
              (r) => `${str(r, "id")}@${num(r, "revision")}`
            )
            expect(all).toHaveLength(60)
            expect(seen).toEqual(all)
          })
      )

      it.effect("two concurrent creates of one external_id from both instances yield one record", () =>
        Effect.gen(function* () {
          const { a, b, token: newToken } = yield* Instances
          const token = yield* newToken(writer)
          for (let round = 0; round < 5; round++) {
            const externalId = `chair-${round}`
            const replies = yield* Effect.all(
              [a, b].map((url) => upsert(url, token, { external_id: externalId, name: `Chair ${round}` })),
              { concurrency: "unbounded" }
            )
            expect(replies.filter((r) => r.status === 200 && at(r.body, "outcome") === "created")).toHaveLength(1)
            for (const r of replies.filter((r) => r.status !== 200))
              expect(at(r.body, "error", "code")).toBe("revision_conflict")
            expect(yield* categoriesWith(a, token, externalId)).toHaveLength(1)
          }
        })
      )
    }
  )
})
