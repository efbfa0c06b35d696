import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { call, freshKey, rawRequest, TestServer, TestServerLive } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "prices:read", "prices:write", "media:read", "media:write"]

const upload = (url: string, token: string, fields: Record<string, string>, file: Uint8Array | undefined, key = freshKey()) =>
  Effect.promise(async () => {
    const form = new FormData()
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    if (file !== undefined) form.append("file", new Blob([file]), "image.bin")
    const response = await fetch(`${url}/api/v1/media`, { method: "POST", headers: { authorization: `Bearer ${token}`, "idempotency-key": key }, body: form })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  })

const waitJob = (url: string, token: string, id: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const reply = yield* call(url, "GET", `/jobs/${id}`, { token })
      if (["completed", "failed", "paused"].includes(reply.body?.job?.state)) return reply.body.job
      yield* Effect.sleep("25 millis")
    }
    throw new Error(`job ${id} did not finish`)
  })

const image = (width: number, height: number, format: "jpeg" | "png" | "webp", options: { alpha?: boolean; orientation?: number } = {}) =>
  Effect.promise(async () => {
    let pipeline = sharp({ create: { width, height, channels: options.alpha ? 4 : 3, background: options.alpha ? { r: 200, g: 10, b: 10, alpha: 0.3 } : { r: 10, g: 120, b: 200 } } })
    if (format === "jpeg") pipeline = pipeline.jpeg().withMetadata(options.orientation === undefined ? {} : { orientation: options.orientation })
    else if (format === "png") pipeline = pipeline.png()
    else pipeline = pipeline.webp()
    return new Uint8Array(await pipeline.toBuffer())
  })

const content = (url: string, token: string, id: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/api/v1/media/${id}/content`, { headers: { authorization: `Bearer ${token}` } })
    return { status: response.status, etag: response.headers.get("etag"), type: response.headers.get("content-type"), data: new Uint8Array(await response.arrayBuffer()) }
  })

layer(TestServerLive, { excludeTestServices: true, timeout: 120_000 })("media end to end", (it) => {
  describe("POST /media", () => {
    it.effect("processes uploads (orientation, alpha, size, no enlargement), links them from a product, reuses versions and stores a picture once", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(scopes)
        const rotated = yield* image(400, 200, "jpeg", { orientation: 6 })
        const alpha = yield* image(300, 300, "png", { alpha: true })
        const large = yield* image(2000, 1000, "jpeg")

        const a = yield* upload(url, token, { external_id: "rot", name: "Rotated", purpose: "catalog" }, rotated)
        expect(a.status).toBe(202)
        expect(a.body.job).toMatchObject({ kind: "media", state: "queued" })
        const b = yield* upload(url, token, { external_id: "alpha", name: "Alpha", purpose: "option" }, alpha)
        const c = yield* upload(url, token, { external_id: "large", name: "Large", purpose: "catalog" }, large)
        const d = yield* upload(url, token, { external_id: "large-option", name: "Large", purpose: "option" }, large)
        const jobs = [a, b, c, d].map((r) => r.body.job.id as string)
        const done = yield* Effect.forEach(jobs, (id) => waitJob(url, token, id))
        expect(done.map((j) => j.state)).toEqual(["completed", "completed", "completed", "completed"])
        // One at a time, in upload order.
        for (let i = 1; i < done.length; i++) expect(done[i].started_at >= done[i - 1].finished_at).toBe(true)

        const list = yield* call(url, "GET", "/media?limit=10", { token })
        expect(list.status).toBe(200)
        const byExternal = Object.fromEntries(list.body.records.map((r: any) => [r.external_id, r]))
        expect(byExternal.rot).toMatchObject({ state: "completed", width: 200, height: 400, content_type: "image/webp", purpose: "catalog" })
        expect(byExternal.alpha).toMatchObject({ width: 300, height: 300 })
        expect(byExternal.large).toMatchObject({ width: 1500, height: 750 })
        expect(byExternal["large-option"]).toMatchObject({ width: 720, height: 360 })

        const png = yield* content(url, token, byExternal.alpha.id)
        expect(png.status).toBe(200)
        expect(png.type).toBe("image/webp")
        expect((yield* Effect.promise(() => sharp(png.data).metadata())).hasAlpha).toBe(true)

        // Same external_id, same file, name and purpose: the same job, no new work.
        const again = yield* upload(url, token, { external_id: "rot", name: "Rotated", purpose: "catalog" }, rotated)
        expect(again.status).toBe(202)
        expect(again.body.job.id).toBe(a.body.job.id)
        // A change under the same external_id is refused.
        const changed = yield* upload(url, token, { external_id: "rot", name: "Renamed", purpose: "catalog" }, rotated)
        expect(changed.status).toBe(409)
        expect(changed.body.error).toMatchObject({ code: "media_version_immutable", details: { changed: ["name"] } })
        // The same picture under another external_id is stored once.
        const copy = yield* upload(url, token, { external_id: "large-copy", name: "Copy", purpose: "catalog" }, large)
        expect((yield* waitJob(url, token, copy.body.job.id)).state).toBe("completed")
        const one = yield* call(url, "GET", "/media?external_id=large-copy", { token })
        expect(one.body.records).toHaveLength(1)
        expect(one.body.records[0]).toMatchObject({ width: 1500, height: 750 })

        // Completed media are referenceable by uuid and by external_id.
        yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "sofas", name: "Sofas" } })
        const product = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p1", name: "Sofa", category_ids: [{ external_id: "sofas" }], media_ids: [{ external_id: "rot" }, byExternal.alpha.id], cover_id: { external_id: "large" } }
        })
        expect(product.status).toBe(200)
        expect(product.body.record.media_ids).toEqual([byExternal.rot.id, byExternal.alpha.id])
        const missing = yield* call(url, "POST", "/products/upsert", {
          token,
          body: { external_id: "p2", name: "Sofa", category_ids: [{ external_id: "sofas" }], media_ids: [{ external_id: "nope" }] }
        })
        expect(missing.body.error?.code).toBe("unresolved_reference")
      }))

    it.effect("refuses non-images (415), corrupt images (422), oversized bodies (413), missing scope (403) and non-multipart bodies (415)", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const t = yield* tenant()
        const token = yield* t.key(scopes)
        const text = yield* upload(url, token, { external_id: "x", name: "X", purpose: "catalog" }, new TextEncoder().encode("hello, not an image"))
        expect(text.status).toBe(415)
        expect(text.body.error.code).toBe("unsupported_image_format")
        const jpeg = yield* image(64, 64, "jpeg")
        const truncated = yield* upload(url, token, { external_id: "t", name: "T", purpose: "catalog" }, jpeg.slice(0, 20))
        expect(truncated.status).toBe(422)
        expect(truncated.body.error.code).toBe("image_corrupt")
        const badPurpose = yield* upload(url, token, { external_id: "p", name: "P", purpose: "banner" }, jpeg)
        expect(badPurpose.status).toBe(422)
        const huge = yield* upload(url, token, { external_id: "h", name: "H", purpose: "catalog" }, new Uint8Array(11 * 1024 * 1024))
        expect(huge.status).toBe(413)
        // Without a Content-Length (chunked), the limit holds while the body streams.
        const boundary = "chunkedboundary"
        const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
        const chunkedBody = Buffer.concat([
          Buffer.from(part("external_id", "c") + part("name", "C") + part("purpose", "catalog")),
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
          jpeg,
          Buffer.alloc(11 * 1024 * 1024),
          Buffer.from(`\r\n--${boundary}--\r\n`)
        ])
        const chunked = yield* rawRequest(url, "POST", "/api/v1/media", {
          authorization: `Bearer ${token}`,
          "idempotency-key": freshKey(),
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "transfer-encoding": "chunked"
        }, chunkedBody)
        expect(chunked.status).toBe(413)
        expect(JSON.parse(chunked.body).error.code).toBe("payload_too_large")
        const reader = yield* t.key(["media:read"])
        const denied = yield* upload(url, reader, { external_id: "d", name: "D", purpose: "catalog" }, jpeg)
        expect(denied.status).toBe(403)
        const json = yield* call(url, "POST", "/media", { token, body: { external_id: "j" } })
        expect(json.status).toBe(415)
        const other = yield* call(url, "POST", "/categories/upsert", { token, raw: "--x--", headers: { "content-type": "multipart/form-data; boundary=x" } })
        expect(other.status).toBe(415)
      }))
  })
})
