import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from "node:zlib"
import type { PortalFile } from "../src/Portal.js"
import * as StaticPortal from "../src/StaticPortal.js"

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const sha256 = (content: string) => createHash("sha256").update(content).digest("hex")

describe("the portal for a static host", () => {
  it("writes each file, and beside each text file worth it its .br (the build's copy when there) and .gz", async () => {
    const out = mkdtempSync(join(tmpdir(), "portal-static-"))
    try {
      const page = "<p>a guide, long enough to be worth compressing</p>\n".repeat(100)
      const bundle = "console.log(1);".repeat(500)
      const files: ReadonlyArray<PortalFile> = [
        { path: "guides/a.html", contentType: "text/html; charset=utf-8", body: page },
        { path: "assets/scalar.0123.js", contentType: "text/javascript; charset=utf-8", body: bundle, immutable: true },
        { path: "tiny.css", contentType: "text/css; charset=utf-8", body: "p{}" }
      ]
      // Quality 1: not what the portal makes itself (quality 11), so the bytes tell which went.
      const copy = new Uint8Array(brotliCompressSync(bundle, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }))
      const copies = (hash: string) => Promise.resolve(hash === sha256(bundle) ? copy : undefined)

      expect(await StaticPortal.writePortal(out, files, copies)).toBe(4)
      expect(readdirSync(out, { recursive: true }).map(String).sort()).toEqual([
        "assets",
        "assets/scalar.0123.js",
        "assets/scalar.0123.js.br",
        "assets/scalar.0123.js.gz",
        "guides",
        "guides/a.html",
        "guides/a.html.br",
        "guides/a.html.gz",
        "tiny.css"
      ])
      const read = (path: string) => new Uint8Array(readFileSync(join(out, path)))
      expect(text(read("guides/a.html"))).toBe(page)
      expect(text(brotliDecompressSync(read("guides/a.html.br")))).toBe(page)
      expect(text(gunzipSync(read("guides/a.html.gz")))).toBe(page)
      expect(read("assets/scalar.0123.js.br")).toEqual(copy)
      expect(text(gunzipSync(read("assets/scalar.0123.js.gz")))).toBe(bundle)
      expect(text(read("tiny.css"))).toBe("p{}")
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })

  it("copies the packages' API reference with the compressed copies of its text files only", async () => {
    const root = mkdtempSync(join(tmpdir(), "portal-static-api-"))
    try {
      const from = join(root, "api")
      mkdirSync(join(from, "modules"), { recursive: true })
      const page = "<section>a module, long enough to be worth compressing</section>\n".repeat(100)
      const image = new Uint8Array(4096).map((_, index) => (index * 7919) % 256)
      writeFileSync(join(from, "modules", "core.html"), page)
      writeFileSync(join(from, "icon.png"), image)
      writeFileSync(join(from, ".nojekyll"), "")

      expect(await StaticPortal.copyPackageReference(from, join(root, "out"))).toBe(2)
      const read = (path: string) => new Uint8Array(readFileSync(join(root, "out", path)))
      expect(text(brotliDecompressSync(read("modules/core.html.br")))).toBe(page)
      expect(text(gunzipSync(read("modules/core.html.gz")))).toBe(page)
      expect(read("icon.png")).toEqual(image)
      expect(existsSync(join(root, "out", "icon.png.gz"))).toBe(false)
      expect(existsSync(join(root, "out", ".nojekyll"))).toBe(true)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
