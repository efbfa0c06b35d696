import { describe, expect, it } from "@effect/vitest"
import { HttpRouter } from "effect/http"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createHash } from "node:crypto"
import { existsSync, readdirSync } from "node:fs"
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from "node:zlib"
import * as PackageReference from "../src/PackageReference.js"
import type { PortalFile } from "../src/Portal.js"
import { encodings, negotiate, notModified } from "../src/PortalEncoding.js"
import { layer } from "../src/PortalHttp.js"
import * as Precompressed from "../src/Precompressed.js"

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("Accept-Encoding", () => {
  it("picks the encoding the client weighs most, brotli on a tie, else the file as it is", () => {
    expect(negotiate("gzip, deflate, br, zstd", ["br", "gzip"])).toBe("br")
    expect(negotiate("gzip, deflate, br", ["gzip"])).toBe("gzip")
    expect(negotiate("br;q=0.5, gzip", ["br", "gzip"])).toBe("gzip")
    expect(negotiate("BR ; Q=1", ["br", "gzip"])).toBe("br")
    expect(negotiate("*", ["br", "gzip"])).toBe("br")
    expect(negotiate("*, br;q=0", ["br", "gzip"])).toBe("gzip")
    expect(negotiate("gzip;q=0", ["br", "gzip"])).toBe("identity")
    expect(negotiate("deflate", ["br", "gzip"])).toBe("identity")
    expect(negotiate("", ["br", "gzip"])).toBe("identity")
    expect(negotiate(undefined, ["br", "gzip"])).toBe("identity")
    expect(negotiate("br", [])).toBe("identity")
  })

  it("compresses on first use, gzip at once and brotli when ready, each with its own ETag", async () => {
    const content = "a portal page, long enough to be worth compressing. ".repeat(200)
    const file = encodings(content)
    const plain = await file.select(undefined)
    expect([plain.encoding, text(plain.body)]).toEqual(["identity", content])
    const first = await file.select("gzip, br")
    expect(["gzip", "br"]).toContain(first.encoding)
    const gzipped = await file.select("gzip")
    expect([gzipped.encoding, text(gunzipSync(gzipped.body))]).toEqual(["gzip", content])
    let brotli = await file.select("br, gzip")
    for (let tries = 0; brotli.encoding !== "br" && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      brotli = await file.select("br, gzip")
    }
    expect([brotli.encoding, text(brotliDecompressSync(brotli.body))]).toEqual(["br", content])
    expect(brotli.body.byteLength).toBeLessThan(content.length / 10)
    expect(new Set([plain.etag, gzipped.etag, brotli.etag]).size).toBe(3)
    expect(gzipped.etag).toBe(plain.etag.replace(/"$/, '-gzip"'))
    // The same content, the same tags: a restarted server still answers 304.
    expect((await encodings(content).select(undefined)).etag).toBe(plain.etag)
  })

  it("sends the brotli copy made beforehand for this very content from the first request, and makes gzip", async () => {
    const content = "a portal page, long enough to be worth compressing. ".repeat(200)
    // Quality 1: not what the server would make itself (quality 11), so the bytes tell which went.
    const copy = new Uint8Array(brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }))
    const asked: Array<string> = []
    const copies = (hash: string) => {
      asked.push(hash)
      return Promise.resolve(hash === createHash("sha256").update(content).digest("hex") ? copy : undefined)
    }
    const file = encodings(content, copies)
    expect((await file.select("gzip, br")).body).toEqual(copy)
    const gzipped = await file.select("gzip")
    expect([gzipped.encoding, text(gunzipSync(gzipped.body))]).toEqual(["gzip", content])
    // A client that weighs gzip more gets gzip, brotli copy or not.
    expect((await file.select("br;q=0.5, gzip")).encoding).toBe("gzip")
    expect((await file.select("br")).body).toEqual(copy)
    expect(asked).toHaveLength(1)
    // Another content has no copy: it is compressed as usual.
    const other = await encodings(`${content}!`, copies).select("gzip")
    expect(text(gunzipSync(other.body))).toBe(`${content}!`)
  })

  it("sends a small file as it is", async () => {
    const small = await encodings("tiny").select("br, gzip")
    expect([small.encoding, text(small.body)]).toEqual(["identity", "tiny"])
  })

  it("answers 304 to an If-None-Match naming the tag", () => {
    expect(notModified('"a", W/"b"', '"b"')).toBe(true)
    expect(notModified("*", '"b"')).toBe(true)
    expect(notModified('"a"', '"b"')).toBe(false)
    expect(notModified(undefined, '"b"')).toBe(false)
  })
})

describe("the brotli copies of the portal's build", () => {
  it("are named for their content, made once, and those of contents no longer given are removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "portal-copies-"))
    try {
      const page = "<p>a guide, long enough to be worth compressing</p>\n".repeat(100)
      const hash = createHash("sha256").update(page).digest("hex")
      // A gzip copy of an earlier build: gzip is made by servers, not shipped.
      writeFileSync(join(dir, `${hash}.gz`), gzipSync(page))
      expect(await Precompressed.write(dir, [page, page, "tiny"])).toBe(1)
      expect(readdirSync(dir)).toEqual([`${hash}.br`])
      const read = Precompressed.reader(dir)
      expect(text(brotliDecompressSync((await read(hash))!))).toBe(page)
      expect(await read("0".repeat(64))).toBeUndefined()
      // Kept as they are: nothing to compress again.
      expect(await Precompressed.write(dir, [page])).toBe(0)
      expect(await Precompressed.write(dir, [`${page}changed`])).toBe(1)
      expect(existsSync(join(dir, `${hash}.br`))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("are served by the portal's routes from its first request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "portal-copies-"))
    try {
      const body = "console.log(1);".repeat(500)
      const copy = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 2 } })
      writeFileSync(join(dir, `${createHash("sha256").update(body).digest("hex")}.br`), copy)
      const files = [{ path: "assets/a.js", contentType: "text/javascript; charset=utf-8", body, immutable: true }]
      const { dispose, handler } = HttpRouter.toWebHandler(layer(files, { precompressed: dir }), {
        disableLogger: true
      })
      const response = await handler(
        new Request("http://portal.test/docs/assets/a.js", { headers: { "accept-encoding": "br" } })
      )
      expect(response.headers.get("content-encoding")).toBe("br")
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(copy))
      await dispose()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("the packages' API reference on disk", () => {
  const root = mkdtempSync(join(tmpdir(), "portal-api-"))
  const api = join(root, "api")
  mkdirSync(join(api, "modules"), { recursive: true })
  writeFileSync(join(api, "index.html"), "<html><body><script>theme()</script>index</body></html>")
  writeFileSync(join(api, "modules", "core.html"), "core")
  writeFileSync(join(root, "secret.html"), "outside")

  it("reads files under its folder only, a folder as its index.html", async () => {
    expect(PackageReference.isBuilt(api)).toBe(true)
    expect(PackageReference.isBuilt(root)).toBe(false)
    expect(text((await PackageReference.read(api, ""))!.body)).toContain("index")
    expect(await PackageReference.read(api, "modules/core.html")).toEqual({
      body: expect.anything(),
      contentType: "text/html; charset=utf-8"
    })
    expect(await PackageReference.read(api, "../secret.html")).toBeUndefined()
    expect(await PackageReference.read(api, "modules/..%2F..%2Fsecret.html")).toBeUndefined()
    expect(await PackageReference.read(api, "%E0%A4%A")).toBeUndefined()
    expect(await PackageReference.read(api, "missing.html")).toBeUndefined()
  })

  it("names the hashes of a page's inline scripts for its Content-Security-Policy", () => {
    // printf 'theme()' | openssl dgst -sha256 -binary | base64
    expect(PackageReference.inlineScriptHashes("<script>theme()</script><script src=x></script>")).toEqual([
      "'sha256-Rfr3GgHZFiXm+TmNr+li+0sZ4J9FGllo8jsXcJF5XZ8='"
    ])
  })

  describe("served by the portal's routes", () => {
    const files: ReadonlyArray<PortalFile> = [
      { path: "index.html", contentType: "text/html; charset=utf-8", body: "<h1>home</h1>".repeat(200) },
      {
        path: "assets/scalar.0123456789ab.js",
        contentType: "text/javascript; charset=utf-8",
        body: "console.log(1);".repeat(500),
        immutable: true
      }
    ]
    const { handler } = HttpRouter.toWebHandler(layer(files, { packageReference: api }), { disableLogger: true })
    const get = (path: string, headers: Record<string, string> = {}) =>
      handler(new Request(`http://portal.test${path}`, { headers }))

    it("sends a file compressed as accepted, with its cache lifetime, ETag and Vary, and 304 when it has not changed", async () => {
      const asset = await get("/docs/assets/scalar.0123456789ab.js", { "accept-encoding": "gzip" })
      expect(asset.status).toBe(200)
      expect(asset.headers.get("content-encoding")).toBe("gzip")
      expect(asset.headers.get("vary")).toBe("accept-encoding")
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(text(gunzipSync(new Uint8Array(await asset.arrayBuffer())))).toBe(files[1]!.body)

      const home = await get("/docs/", { "accept-encoding": "identity" })
      expect([home.status, home.headers.get("content-encoding"), home.headers.get("cache-control")]).toEqual([
        200,
        null,
        "no-cache"
      ])
      expect(await home.text()).toBe(files[0]!.body)
      const again = await get("/docs/index.html", { "if-none-match": home.headers.get("etag")! })
      expect([again.status, await again.text(), again.headers.get("etag")]).toEqual([304, "", home.headers.get("etag")])
      expect(again.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    })

    it("serves the packages' API reference with its inline script allowed by hash, and nothing outside it", async () => {
      const index = await get("/docs/api/")
      expect(index.status).toBe(200)
      expect(index.headers.get("content-security-policy")).toContain(
        "script-src 'self' 'sha256-Rfr3GgHZFiXm+TmNr+li+0sZ4J9FGllo8jsXcJF5XZ8='"
      )
      expect(await (await get("/docs/api/modules/core.html")).text()).toBe("core")
      expect((await get("/docs/api/../secret.html")).status).toBe(404)
      expect((await get("/docs/api/modules/..%2F..%2Fsecret.html")).status).toBe(404)
      rmSync(root, { recursive: true, force: true })
    })
  })
})
