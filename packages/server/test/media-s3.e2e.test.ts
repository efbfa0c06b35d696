import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import { startS3, type TestS3 } from "@catalog-sync/adapter-storage-s3/testing"
import { Admin, Ids } from "@catalog-sync/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Logger, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import sharp from "sharp"
import { PersistenceLive, ServerLive } from "../src/Server.js"
import type { ServerConfig } from "../src/ServerConfig.js"
import { at, record, records, str } from "./Json.js"
import { call, freshKey, testDatabase } from "./TestServer.js"

const scopes = ["catalog:read", "media:read", "media:write"]

/** A data folder and a database (SQLite there, or a fresh PostgreSQL one) that outlive server restarts. */
const database = Effect.gen(function* () {
  const dataDir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-s3-e2e-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  const base: ServerConfig = {
    port: 0,
    host: "127.0.0.1",
    dataDir,
    databaseFile: Option.none(),
    shutdownTimeoutSeconds: 1,
    logLevel: "Error"
  }
  return testDatabase === "postgres"
    ? {
        ...base,
        postgres: { url: Redacted.make(yield* PgTesting.freshDatabase), poolSize: 3, statementTimeoutMillis: 30_000 }
      }
    : base
})

/**
 * A server on `config` with `workers` job workers (0: it only takes requests), until the scope closes;
 * its log lines (logfmt) go to `logs`.
 */
const serve = (config: ServerConfig, workers: number, logs: Array<string> = []) =>
  Effect.map(
    Layer.build(
      ServerLive(config).pipe(
        Layer.provide(Logger.layer([Logger.map(Logger.formatLogFmt, (line) => void logs.push(line))])),
        Layer.provide(
          ConfigProvider.layer(
            ConfigProvider.fromEnvRecord({ JOB_WORKERS: String(workers), JOB_POLL_MILLISECONDS: "50" }).pipe(
              ConfigProvider.orElse(ConfigProvider.fromEnv())
            )
          )
        )
      )
    ),
    (context) =>
      `http://127.0.0.1:${(Context.get(context, HttpServer.HttpServer).address as NetAddress.InetAddress).port}`
  )

/** A company with a media key; `slug` is its storage folder. */
const tenant = (config: ServerConfig, slug: string) =>
  Effect.gen(function* () {
    const admin = Context.get(
      yield* Layer.build(Admin.Admin.Default.pipe(Layer.provide(PersistenceLive(config)), Layer.provide(Ids.IdsLive))),
      Admin.Admin
    )
    const company = yield* admin.createCompany({
      name: "Acme",
      currency: "EUR",
      main_language: "en",
      storage_slug: slug,
      granted_scopes: scopes
    })
    const connection = yield* admin.createConnection(company.id, "ERP")
    return (yield* admin.createKey({ connection_id: connection.id, scopes, lifetime_days: 1 })).token
  })

const upload = (url: string, token: string, externalId: string, file: Uint8Array) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("external_id", externalId)
    form.append("name", externalId)
    form.append("purpose", "catalog")
    form.append("file", new Blob([file]), "image.jpg")
    const response = await fetch(`${url}/api/v1/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": freshKey() },
      body: form
    })
    return { status: response.status, body: JSON.parse(await response.text()) }
  })

const image = (width: number, shade: number) =>
  Effect.promise(
    async () =>
      new Uint8Array(
        await sharp({ create: { width, height: 200, channels: 3, background: { r: shade, g: 90, b: 160 } } })
          .jpeg()
          .toBuffer()
      )
  )

const job = (url: string, token: string, id: string) =>
  Effect.map(call(url, "GET", `/jobs/${id}`, { token }), (reply) => record(reply.body, "job"))

const settle = (url: string, token: string, id: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const current = yield* job(url, token, id)
      if (["completed", "failed", "paused"].includes(str(current, "state"))) return current
      yield* Effect.sleep("25 millis")
    }
    throw new Error(`job ${id} did not settle`)
  })

/** The object files s3rver keeps for `folder` of the bucket (its on-disk layout: one `*._S3rver_object` per object). */
const objectsIn = (s3: TestS3, folder: string) =>
  Effect.sync(() => {
    try {
      return readdirSync(join(s3.directory, s3.bucket, folder)).filter((name) => name.endsWith("._S3rver_object"))
        .length
    } catch {
      return 0
    }
  })

describe("media on S3", () => {
  it.live(
    "a worker with refused credentials pauses the company's media; restarted with good ones, a retry completes every image once, in upload order",
    () =>
      Effect.gen(function* () {
        const s3 = yield* startS3()
        const db = yield* database
        const good: ServerConfig = { ...db, mediaStorage: { kind: "s3", s3: s3.settings({ prefix: "media" }) } }
        const stale: ServerConfig = {
          ...db,
          logLevel: "Warn",
          mediaStorage: { kind: "s3", s3: s3.settings({ prefix: "media", accessKeyId: "AKIAREVOKEDKEY000000" }) }
        }
        const slug = `acme-${Date.now()}`
        const token = yield* tenant(good, slug)
        const pictures = [yield* image(300, 10), yield* image(320, 60), yield* image(340, 110)]
        // The first picture again under another external_id: processed once, stored once.
        const uploads = [
          ["chair", pictures[0]!],
          ["sofa", pictures[1]!],
          ["chair-copy", pictures[0]!],
          ["table", pictures[2]!]
        ] as const

        // An instance that only takes requests stages the uploads in the bucket.
        const jobs = yield* Effect.scoped(
          Effect.gen(function* () {
            const url = yield* serve(good, 0)
            return yield* Effect.forEach(uploads, ([externalId, file]) =>
              Effect.map(upload(url, token, externalId, file), (reply) => {
                expect(reply.status).toBe(202)
                return str(reply.body, "job", "id")
              })
            )
          })
        )
        expect(yield* objectsIn(s3, "media/_staging")).toBe(4)

        // A worker whose key S3 no longer accepts: the first job pauses and nothing after it runs.
        const logs: Array<string> = []
        yield* Effect.scoped(
          Effect.gen(function* () {
            const url = yield* serve(stale, 1, logs)
            const paused = yield* settle(url, token, jobs[0]!)
            expect(paused).toMatchObject({ state: "paused", failure: { code: "storage_denied" } })
            expect(str(paused, "failure", "message")).not.toContain(s3.secretAccessKey)
            // Uploads through this instance are refused before anything is queued.
            const refused = yield* upload(url, token, "lamp", pictures[2]!)
            expect({ status: refused.status, code: at(refused.body, "error", "code") }).toEqual({
              status: 503,
              code: "storage_denied"
            })
            yield* Effect.sleep("600 millis")
            for (const id of jobs.slice(1)) expect((yield* job(url, token, id)).state).toBe("queued")
          })
        )
        expect(yield* objectsIn(s3, `media/${slug}`)).toBe(0)
        // The operator learns which job paused, and why, from the log; the log never holds the secret.
        expect(
          logs.some(
            (line) =>
              line.includes("image processing of the company is paused") &&
              line.includes(jobs[0]!) &&
              line.includes("InvalidAccessKeyId")
          )
        ).toBe(true)
        expect(logs.some((line) => line.includes("S3 refuses access to the bucket"))).toBe(true)
        expect(logs.filter((line) => line.includes(s3.secretAccessKey))).toEqual([])

        // The operator restarts with the right key: still paused until the job is retried.
        const url = yield* serve(good, 1)
        yield* Effect.sleep("400 millis")
        expect((yield* Effect.forEach(jobs, (id) => job(url, token, id))).map((j) => j.state)).toEqual([
          "paused",
          "queued",
          "queued",
          "queued"
        ])
        const retried = yield* call(url, "POST", `/jobs/${jobs[0]}/retry`, { token })
        expect(retried.status).toBeLessThan(300)
        const done = yield* Effect.forEach(jobs, (id) => settle(url, token, id))
        expect(done.map((j) => j.state)).toEqual(["completed", "completed", "completed", "completed"])
        for (let i = 1; i < done.length; i++)
          expect(str(done[i], "started_at") >= str(done[i - 1], "finished_at"), JSON.stringify(done)).toBe(true)

        const media = records((yield* call(url, "GET", "/media?limit=10", { token })).body)
        expect(media.map((m) => [m.external_id, m.state, m.revision])).toEqual(
          uploads.map(([externalId]) => [externalId, "completed", 2])
        )
        for (const item of media) {
          const response = yield* Effect.promise(() =>
            fetch(`${url}/api/v1/media/${str(item, "id")}/content`, { headers: { authorization: `Bearer ${token}` } })
          )
          const data = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
          expect({ status: response.status, type: response.headers.get("content-type") }).toEqual({
            status: 200,
            type: "image/webp"
          })
          expect((yield* Effect.promise(() => sharp(data).metadata())).width).toBe(item.width)
        }
        // Three pictures stored, in the company's folder; every staged upload removed (a job removes its
        // staged upload after its completion commits, so the last one may still be on its way).
        expect(yield* objectsIn(s3, `media/${slug}`)).toBe(3)
        for (let i = 0; i < 200 && (yield* objectsIn(s3, "media/_staging")) > 0; i++) yield* Effect.sleep("25 millis")
        expect(yield* objectsIn(s3, "media/_staging")).toBe(0)
      }),
    120_000
  )
})
