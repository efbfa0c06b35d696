import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { join } from "node:path"
import sharp from "sharp"
import { at, records, str } from "./Json.js"
import { call, freshKey, rawRequest, TestServer, TestServerLive, uploadMedia as upload, waitJob } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "prices:read", "prices:write", "media:read", "media:write"]

/** What the server's staging folder holds: nothing once every upload was processed or refused. */
const stagedFiles = (dataDir: string) =>
  existsSync(join(dataDir, "staging")) ? readdirSync(join(dataDir, "staging")) : []

/** The staged files once none are left (or 5 s passed): a worker removes an item's file just after recording it done. */
const stagedSettled = (dataDir: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200 && stagedFiles(dataDir).length > 0; i++) yield* Effect.sleep("25 millis")
    return stagedFiles(dataDir)
  })

const image = (
  width: number,
  height: number,
  format: "jpeg" | "png" | "webp",
  options: { alpha?: boolean; orientation?: number } = {}
) =>
  Effect.promise(async () => {
    let pipeline = sharp({
      create: {
        width,
        height,
        channels: options.alpha ? 4 : 3,
        background: options.alpha ? { r: 200, g: 10, b: 10, alpha: 0.3 } : { r: 10, g: 120, b: 200 }
      }
    })
    if (format === "jpeg")
      pipeline = pipeline
        .jpeg()
        .withMetadata(options.orientation === undefined ? {} : { orientation: options.orientation })
    else if (format === "png") pipeline = pipeline.png()
    else pipeline = pipeline.webp()
    return new Uint8Array(await pipeline.toBuffer())
  })

const content = (url: string, token: string, id: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/api/v1/media/${id}/content`, {
      headers: { authorization: `Bearer ${token}`, ...headers }
    })
    return {
      status: response.status,
      etag: response.headers.get("etag"),
      cacheControl: response.headers.get("cache-control"),
      type: response.headers.get("content-type"),
      data: new Uint8Array(await response.arrayBuffer())
    }
  })

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })("media end to end", (it) => {
  describe("POST /media", () => {
    it.effect(
      "processes uploads (orientation, alpha, size, no enlargement), links them from a product, reuses versions and stores a picture once",
      () =>
        Effect.gen(function* () {
          const { url, tenant, dataDir } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(scopes)
          const rotated = yield* image(400, 200, "jpeg", { orientation: 6 })
          const alpha = yield* image(300, 300, "png", { alpha: true })
          const large = yield* image(2000, 1000, "jpeg")

          const a = yield* upload(url, token, { external_id: "rot", name: "Rotated", purpose: "catalog" }, rotated)
          expect(a.status).toBe(202)
          expect(at(a.body, "job")).toMatchObject({ kind: "media", state: "queued" })
          const b = yield* upload(url, token, { external_id: "alpha", name: "Alpha", purpose: "option" }, alpha)
          const c = yield* upload(url, token, { external_id: "large", name: "Large", purpose: "catalog" }, large)
          const d = yield* upload(url, token, { external_id: "large-option", name: "Large", purpose: "option" }, large)
          const jobs = [a, b, c, d].map((r) => str(r.body, "job", "id"))
          const done = yield* Effect.forEach(jobs, (id) => waitJob(url, token, id))
          expect(done.map((j) => j.state)).toEqual(["completed", "completed", "completed", "completed"])
          // One at a time, in upload order.
          for (let i = 1; i < done.length; i++)
            expect(str(done[i], "started_at") >= str(done[i - 1], "finished_at")).toBe(true)

          const list = yield* call(url, "GET", "/media?limit=10", { token })
          expect(list.status).toBe(200)
          const byExternal = Object.fromEntries(records(list.body).map((r) => [r.external_id, r]))
          expect(byExternal.rot).toMatchObject({
            state: "completed",
            width: 200,
            height: 400,
            content_type: "image/webp",
            purpose: "catalog"
          })
          expect(byExternal.alpha).toMatchObject({ width: 300, height: 300 })
          expect(byExternal.large).toMatchObject({ width: 1500, height: 750 })
          expect(byExternal["large-option"]).toMatchObject({ width: 720, height: 360 })

          const png = yield* content(url, token, byExternal.alpha.id)
          expect(png.status).toBe(200)
          expect(png.type).toBe("image/webp")
          expect(png.cacheControl).toBe("private, max-age=31536000, immutable")
          expect(png.etag).toMatch(/^"[0-9a-f]{64}-option"$/)
          const revalidated = yield* content(url, token, byExternal.alpha.id, { "if-none-match": png.etag! })
          expect([revalidated.status, revalidated.data.byteLength, revalidated.etag]).toEqual([304, 0, png.etag])
          const queued = yield* content(url, token, crypto.randomUUID())
          expect(queued.status).toBe(404)
          expect((yield* Effect.promise(() => sharp(png.data).metadata())).hasAlpha).toBe(true)

          // Same external_id, same file, name and purpose: the same job, no new work.
          const again = yield* upload(url, token, { external_id: "rot", name: "Rotated", purpose: "catalog" }, rotated)
          expect(again.status).toBe(202)
          expect(at(again.body, "job", "id")).toBe(at(a.body, "job", "id"))
          expect(yield* stagedSettled(dataDir)).toEqual([])
          // A change under the same external_id is refused.
          const changed = yield* upload(
            url,
            token,
            { external_id: "rot", name: "Renamed", purpose: "catalog" },
            rotated
          )
          expect(changed.status).toBe(409)
          expect(at(changed.body, "error")).toMatchObject({
            code: "media_version_immutable",
            details: { changed: ["name"] }
          })
          expect(yield* stagedSettled(dataDir)).toEqual([])
          // The same picture under another external_id is stored once.
          const copy = yield* upload(url, token, { external_id: "large-copy", name: "Copy", purpose: "catalog" }, large)
          expect((yield* waitJob(url, token, str(copy.body, "job", "id"))).state).toBe("completed")
          const one = yield* call(url, "GET", "/media?external_id=large-copy", { token })
          expect(at(one.body, "records")).toHaveLength(1)
          expect(at(one.body, "records", 0)).toMatchObject({ width: 1500, height: 750 })
          // Five items, four distinct (picture, purpose) pairs: four files in the company's folder.
          const [folder, ...others] = readdirSync(join(dataDir, "media"))
          expect(others).toEqual([])
          expect(readdirSync(join(dataDir, "media", folder!))).toHaveLength(4)
          // Cursor pages in id order.
          const first = yield* call(url, "GET", "/media?limit=3", { token })
          expect([records(first.body).length, at(first.body, "has_more")]).toEqual([3, true])
          const rest = yield* call(url, "GET", `/media?limit=3&cursor=${at(first.body, "next_cursor")}`, { token })
          expect([records(rest.body).length, at(rest.body, "has_more"), at(rest.body, "next_cursor")]).toEqual([
            2,
            false,
            null
          ])
          const ids = [...records(first.body), ...records(rest.body)].map((r) => r.id)
          expect(ids).toEqual([...ids].sort())
          expect(new Set(ids).size).toBe(5)

          // Completed media are referenceable by uuid and by external_id.
          yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "sofas", name: "Sofas" } })
          const product = yield* call(url, "POST", "/products/upsert", {
            token,
            body: {
              external_id: "p1",
              name: "Sofa",
              category_ids: [{ external_id: "sofas" }],
              media_ids: [{ external_id: "rot" }, byExternal.alpha.id],
              cover_id: { external_id: "large" }
            }
          })
          expect(product.status).toBe(200)
          expect(at(product.body, "record", "media_ids")).toEqual([byExternal.rot.id, byExternal.alpha.id])
          const missing = yield* call(url, "POST", "/products/upsert", {
            token,
            body: {
              external_id: "p2",
              name: "Sofa",
              category_ids: [{ external_id: "sofas" }],
              media_ids: [{ external_id: "nope" }]
            }
          })
          expect(at(missing.body, "error", "code")).toBe("unresolved_reference")
        })
    )

    it.effect(
      "refuses non-images (415), corrupt images, bad or unknown fields and URLs (422), oversized bodies (413), bad credentials (401/403) and non-multipart bodies (415), staging nothing",
      () =>
        Effect.gen(function* () {
          const { url, tenant, dataDir } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(scopes)
          const jpeg = yield* image(64, 64, "jpeg")
          const fields = (id: string) => ({ external_id: id, name: id.toUpperCase(), purpose: "catalog" })
          const refused = (reply: { status: number; body: unknown }, status: number, code: string) =>
            Effect.gen(function* () {
              expect([reply.status, at(reply.body, "error", "code")]).toEqual([status, code])
              expect(yield* stagedSettled(dataDir)).toEqual([])
            })
          yield* refused(
            yield* upload(url, token, fields("x"), new TextEncoder().encode("hello, not an image")),
            415,
            "unsupported_image_format"
          )
          yield* refused(yield* upload(url, token, fields("t"), jpeg.slice(0, 20)), 422, "image_corrupt")
          yield* refused(
            yield* upload(url, token, { ...fields("p"), purpose: "banner" }, jpeg),
            422,
            "validation_failed"
          )
          yield* refused(yield* upload(url, token, { ...fields("u"), colour: "red" }, jpeg), 422, "validation_failed")
          yield* refused(
            yield* upload(url, token, { external_id: "n", purpose: "catalog" }, jpeg),
            422,
            "validation_failed"
          )
          // Remote URLs are not imported: neither in place of the file part nor as its content.
          yield* refused(
            yield* upload(url, token, { ...fields("r1"), file: "https://cdn.example.com/sofa.jpg" }, undefined),
            422,
            "remote_url_not_accepted"
          )
          yield* refused(
            yield* upload(url, token, { ...fields("r2"), image_url: "https://cdn.example.com/sofa.jpg" }, jpeg),
            422,
            "remote_url_not_accepted"
          )
          yield* refused(
            yield* upload(url, token, fields("r3"), new TextEncoder().encode("https://cdn.example.com/sofa.jpg")),
            422,
            "remote_url_not_accepted"
          )
          yield* refused(yield* upload(url, token, fields("none"), undefined), 422, "validation_failed")
          // 40 MP is refused from the header: a 8000 x 5001 PNG of one colour is small to send.
          const tooMany = yield* Effect.promise(
            async () =>
              new Uint8Array(
                await sharp({ create: { width: 8000, height: 5001, channels: 3, background: "#fff" } })
                  .png({ compressionLevel: 9 })
                  .toBuffer()
              )
          )
          yield* refused(yield* upload(url, token, fields("big"), tooMany), 422, "image_too_many_pixels")
          yield* refused(
            yield* upload(url, token, fields("h"), new Uint8Array(11 * 1024 * 1024)),
            413,
            "payload_too_large"
          )
          // Without a Content-Length (chunked), the limit holds while the body streams.
          const boundary = "chunkedboundary"
          const part = (name: string, value: string) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
          const filePart = (name: string, data: Uint8Array) =>
            Buffer.concat([
              Buffer.from(
                `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="f.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`
              ),
              data,
              Buffer.from("\r\n")
            ])
          const multipart = (body: Buffer) =>
            rawRequest(
              url,
              "POST",
              "/api/v1/media",
              {
                authorization: `Bearer ${token}`,
                "idempotency-key": freshKey(),
                "content-type": `multipart/form-data; boundary=${boundary}`,
                "transfer-encoding": "chunked"
              },
              body
            ).pipe(Effect.map((reply) => ({ status: reply.status, body: JSON.parse(reply.body) })))
          const head = Buffer.from(part("external_id", "c") + part("name", "C") + part("purpose", "catalog"))
          const end = Buffer.from(`--${boundary}--\r\n`)
          yield* refused(
            yield* multipart(
              Buffer.concat([head, filePart("file", Buffer.concat([jpeg, Buffer.alloc(11 * 1024 * 1024)])), end])
            ),
            413,
            "payload_too_large"
          )
          // A second file part, after the first was staged; and a file part under another name.
          yield* refused(
            yield* multipart(Buffer.concat([head, filePart("file", jpeg), filePart("file", jpeg), end])),
            422,
            "validation_failed"
          )
          yield* refused(
            yield* multipart(Buffer.concat([head, filePart("photo", jpeg), end])),
            422,
            "validation_failed"
          )
          // A filename* whose percent escapes do not decode: refused, and the server serves on.
          const badName = yield* multipart(
            Buffer.concat([
              head,
              Buffer.from(
                `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''%E0%A4%A\r\nContent-Type: image/jpeg\r\n\r\n`
              ),
              jpeg,
              Buffer.from("\r\n"),
              end
            ])
          )
          yield* refused(badName, 422, "validation_failed")
          expect(at(badName.body, "error", "details")).toEqual([
            { path: "$", message: "the multipart body is not valid: a part's headers do not parse" }
          ])
          // A body that stops before the form's closing boundary, after its file: nothing of it is kept.
          const unended = yield* multipart(Buffer.concat([head, filePart("file", jpeg)]))
          yield* refused(unended, 422, "validation_failed")
          expect(at(unended.body, "error", "details")).toEqual([
            { path: "$", message: "the multipart body is not valid: it ends before the form's closing boundary" }
          ])
          const reader = yield* t.key(["media:read"])
          yield* refused(yield* upload(url, reader, fields("d"), jpeg), 403, "insufficient_scope")
          yield* refused(yield* upload(url, token, fields("k"), jpeg, "short"), 422, "idempotency_key_invalid")
          const reusedKey = freshKey()
          const accepted = yield* upload(url, token, fields("k"), jpeg, reusedKey)
          expect(accepted.status).toBe(202)
          yield* waitJob(url, token, str(accepted.body, "job", "id"))
          const replayed = yield* upload(url, token, fields("k"), jpeg, reusedKey)
          expect([replayed.status, at(replayed.body, "job", "id"), at(replayed.body, "replayed")]).toEqual([
            202,
            at(accepted.body, "job", "id"),
            true
          ])
          expect(yield* stagedSettled(dataDir)).toEqual([])
          yield* refused(
            yield* upload(url, token, fields("k"), yield* image(65, 64, "jpeg"), reusedKey),
            409,
            "idempotency_key_reused"
          )
          yield* refused(yield* upload(url, "csk_not-a-real-key", fields("d"), jpeg), 401, "invalid_credentials")
          const json = yield* call(url, "POST", "/media", { token, body: { external_id: "j" } })
          expect(json.status).toBe(415)
          const other = yield* call(url, "POST", "/categories/upsert", {
            token,
            raw: "--x--",
            headers: { "content-type": "multipart/form-data; boundary=x" }
          })
          expect(other.status).toBe(415)
          expect(
            records((yield* call(url, "GET", "/media?limit=50", { token })).body).map((r) => r.external_id)
          ).toEqual(["k"])
        })
    )

    it.effect(
      "an upload whose key is revoked while its body arrives is refused with 401 key_revoked once it ends, and keeps nothing staged",
      () =>
        Effect.gen(function* () {
          const { url, tenant, admin, dataDir } = yield* TestServer
          const t = yield* tenant()
          const token = yield* t.key(scopes)
          const second = yield* t.key(scopes)
          const keyId = str((yield* call(url, "GET", "/me", { token })).body, "principal", "key_id")
          const jpeg = yield* image(1200, 900, "jpeg")
          const boundary = "revokedwhilesending"
          const head = Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="external_id"\r\n\r\nlate\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nLate\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`
          )
          const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
          const half = Math.floor(jpeg.byteLength / 2)
          const reply = yield* Effect.callback<{ status: number; body: unknown }>((resume) => {
            const target = new URL(url)
            const req = httpRequest(
              {
                host: target.hostname,
                port: target.port,
                method: "POST",
                path: "/api/v1/media",
                headers: {
                  authorization: `Bearer ${token}`,
                  "idempotency-key": freshKey(),
                  "content-type": `multipart/form-data; boundary=${boundary}`,
                  "content-length": String(head.byteLength + jpeg.byteLength + tail.byteLength)
                }
              },
              (res) => {
                const chunks: Array<Buffer> = []
                res.on("data", (c: Buffer) => chunks.push(c))
                res.on("end", () =>
                  resume(
                    Effect.succeed({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) })
                  )
                )
              }
            )
            req.on("error", (error) => resume(Effect.die(error)))
            // Half the file, then the key is revoked, then the rest: the request was admitted with a valid key.
            req.write(Buffer.concat([head, jpeg.subarray(0, half)]))
            setTimeout(() => {
              Effect.runPromise(admin.revokeKey(keyId)).then(
                () => setTimeout(() => req.end(Buffer.concat([jpeg.subarray(half), tail])), 200),
                (error) => resume(Effect.die(error))
              )
            }, 300)
          })
          expect([reply.status, at(reply.body, "error", "code")]).toEqual([401, "key_revoked"])
          expect(yield* stagedSettled(dataDir)).toEqual([])
          expect(at((yield* call(url, "GET", "/media?external_id=late", { token: second })).body, "records")).toEqual(
            []
          )
          expect(at((yield* call(url, "GET", "/jobs", { token: second })).body, "records")).toEqual([])
        })
    )
  })
})
