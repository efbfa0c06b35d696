import { describe, expect, it } from "@effect/vitest"
import { Media } from "@catalog-sync/core"
import { InMemoryMedia, runMediaStagingConformance, runMediaStorageConformance } from "@catalog-sync/core/testing"

describe("Media rules", () => {
  it("sniffs JPEG, PNG and WebP from the bytes, nothing else", () => {
    expect(Media.sniffFormat(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe("jpeg")
    expect(Media.sniffFormat(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe("png")
    expect(Media.sniffFormat(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe("webp")
    expect(Media.sniffFormat(new TextEncoder().encode("GIF89a"))).toBeUndefined()
    expect(Media.sniffFormat(new TextEncoder().encode("RIFF\0\0\0\0WAVE"))).toBeUndefined()
    expect(Media.sniffFormat(new Uint8Array())).toBeUndefined()
  })

  it("shrinks the long edge to 1500 (catalog) or 720 (option), never enlarges", () => {
    expect(Media.targetSize(2000, 1000, "catalog")).toEqual({ width: 1500, height: 750 })
    expect(Media.targetSize(1000, 2000, "option")).toEqual({ width: 360, height: 720 })
    expect(Media.targetSize(300, 200, "catalog")).toEqual({ width: 300, height: 200 })
    expect(Media.targetSize(720, 10, "option")).toEqual({ width: 720, height: 10 })
  })

  it("a URL in any field but external_id and name is an attempt to import a remote image", () => {
    expect(Media.isRemoteUrl("https://cdn.example.com/a.jpg")).toBe(true)
    expect(Media.isRemoteUrl("  ftp://host/a.png")).toBe(true)
    expect(Media.isRemoteUrl("sofa-front.jpg")).toBe(false)
    expect(Media.isRemoteUrl("catalog")).toBe(false)
    const base = { external_id: "https://erp.example.com/items/1", name: "http://x.example/y", purpose: "catalog" }
    expect(Media.remoteUrlField(base)).toBeUndefined()
    expect(Media.remoteUrlField({ ...base, file: "https://cdn.example.com/a.jpg" })).toBe("$.file")
    expect(Media.remoteUrlField({ ...base, purpose: "http://x/y" })).toBe("$.purpose")
    expect(Media.remoteUrlField({ ...base, colour: "red" })).toBeUndefined()
  })

  it("content keys depend on source hash and purpose", () => {
    expect(Media.contentKey("abc", "catalog")).not.toBe(Media.contentKey("abc", "option"))
    expect(Media.contentKey("abc", "catalog")).toBe(Media.contentKey("abc", "catalog"))
  })
})

runMediaStorageConformance("in memory", InMemoryMedia.storageLayer)
runMediaStagingConformance("in memory", InMemoryMedia.stagingLayer)
