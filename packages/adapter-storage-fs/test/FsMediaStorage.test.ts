import { FsMediaStorage } from "@catalog-sync/adapter-storage-fs"
import { MediaStorage } from "@catalog-sync/core"
import { chunksOf, runMediaStagingConformance, runMediaStorageConformance } from "@catalog-sync/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const tempRoot = Layer.unwrap(
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "media-fs-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ),
    FsMediaStorage.layer
  )
)

runMediaStorageConformance("filesystem", tempRoot)

describe("FsMediaStorage", () => {
  it.effect("leaves no temp files; staging hashes while streaming and removes a failed upload", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "media-fs-"))
      const storage = FsMediaStorage.make(root)
      yield* storage.put("acme", "k.webp", Uint8Array.from([1, 2, 3]))
      expect(readdirSync(join(root, "acme"))).toEqual(["k.webp"])
      const staging = FsMediaStorage.makeStaging(join(root, "staging"))
      const chunks = [Uint8Array.from([1, 2]), Uint8Array.from([3])]
      const staged = yield* staging.write(...chunksOf(Stream.fromIterable(chunks)))
      expect(staged.bytes).toBe(3)
      expect(Array.from(staged.head)).toEqual([1, 2, 3])
      expect(staged.sha256).toBe(
        createHash("sha256")
          .update(Uint8Array.from([1, 2, 3]))
          .digest("hex")
      )
      expect(Array.from(yield* staging.read(staged.key))).toEqual([1, 2, 3])
      const failed = yield* Effect.flip(
        staging.write(...chunksOf(Stream.concat(Stream.make(Uint8Array.from([9])), Stream.fail("boom" as const))))
      )
      expect(failed).toBe("boom")
      expect(readdirSync(join(root, "staging"))).toEqual([staged.key])
      yield* staging.remove(staged.key)
      rmSync(root, { recursive: true, force: true })
    })
  )

  it("maps refusals of access (EACCES, EPERM, EROFS) to denied, a missing file to not_found, the rest to unavailable", () => {
    // Tests run as root, for whom chmod denies nothing: the mapping is checked on the errors Node raises.
    const reasonOf = (code: string | undefined) =>
      FsMediaStorage.storageError(Object.assign(new Error("x"), { code }), "writing").reason
    expect(["EACCES", "EPERM", "EROFS"].map(reasonOf)).toEqual(["denied", "denied", "denied"])
    expect(reasonOf("ENOENT")).toBe("not_found")
    expect([reasonOf("ENOSPC"), reasonOf("EIO"), reasonOf(undefined)]).toEqual([
      "unavailable",
      "unavailable",
      "unavailable"
    ])
    expect(FsMediaStorage.storageError(new Error("x"), "writing")).toMatchObject({ code: "storage_unavailable" })
  })

  it.effect("staging lists its files with their modification times; a missing folder lists nothing", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "media-fs-"))
      const staging = FsMediaStorage.makeStaging(join(root, "staging"))
      expect(yield* staging.list).toEqual([])
      const staged = yield* staging.write(...chunksOf(Stream.make(Uint8Array.from([1, 2, 3]))))
      writeFileSync(join(root, "staging", "old.upload"), "x")
      utimesSync(join(root, "staging", "old.upload"), new Date(1_000_000), new Date(1_000_000))
      mkdirSync(join(root, "staging", "a-folder"))
      const listed = [...(yield* staging.list)].sort((a, b) => a.modifiedMillis - b.modifiedMillis)
      expect(listed.map((f) => f.key)).toEqual(["old.upload", staged.key])
      expect(listed[0]!.modifiedMillis).toBe(1_000_000)
      expect(Math.abs(listed[1]!.modifiedMillis - Date.now())).toBeLessThan(60_000)
      rmSync(root, { recursive: true, force: true })
    })
  )

  it.effect("keeps the first headBytes of a large upload as its head, across chunks", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "media-fs-"))
      const staging = FsMediaStorage.makeStaging(join(root, "staging"))
      const chunk = (n: number) => Uint8Array.from({ length: 100_000 }, (_, i) => (n + i) % 251)
      const chunks = [chunk(0), chunk(1), chunk(2), chunk(3)]
      const staged = yield* staging.write(...chunksOf(Stream.fromIterable(chunks)))
      const whole = Buffer.concat(chunks)
      expect(staged.bytes).toBe(400_000)
      expect(staged.head.byteLength).toBe(MediaStorage.headBytes)
      expect(Buffer.from(staged.head).equals(whole.subarray(0, MediaStorage.headBytes))).toBe(true)
      rmSync(root, { recursive: true, force: true })
    })
  )

  it.live(
    "removes temporary files that interrupted writes left over an hour ago, at start; keeps younger ones and the media",
    () =>
      Effect.gen(function* () {
        const root = mkdtempSync(join(tmpdir(), "media-fs-"))
        mkdirSync(join(root, "acme"))
        const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)
        for (const [name, age] of [
          [".tmp-old", 2],
          [".tmp-young", 0],
          ["k.webp", 5]
        ] as const) {
          writeFileSync(join(root, "acme", name), "x")
          utimesSync(join(root, "acme", name), hoursAgo(age), hoursAgo(age))
        }
        yield* Effect.scoped(Layer.build(FsMediaStorage.layer(root)).pipe(Effect.andThen(Effect.sleep("200 millis"))))
        expect(readdirSync(join(root, "acme")).sort()).toEqual([".tmp-young", "k.webp"])
        expect(yield* FsMediaStorage.sweepTemporaryFiles(join(root, "missing"), Date.now())).toBe(0)
        rmSync(root, { recursive: true, force: true })
      }),
    { timeout: 10_000 }
  )
})

runMediaStagingConformance(
  "filesystem",
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "media-fs-staging-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      ),
      // A folder that does not exist yet: the first write creates it, list finds nothing before.
      (dir) => FsMediaStorage.stagingLayer(join(dir, "staging"))
    )
  )
)
