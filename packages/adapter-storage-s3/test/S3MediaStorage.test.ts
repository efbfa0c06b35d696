import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3"
import { S3MediaStorage } from "@catalog-sync/adapter-storage-s3"
import { startS3, type TestS3 } from "@catalog-sync/adapter-storage-s3/testing"
import { chunksOf, runMediaStagingConformance, runMediaStorageConformance } from "@catalog-sync/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Redacted, Stream } from "effect"
import { createHash } from "node:crypto"
import { createServer } from "node:net"

// Each test gets its own s3rver; a prefix makes the layout under it part of what is checked.
const onS3 = Layer.unwrap(Effect.map(startS3(), (s3) => S3MediaStorage.layer(s3.settings({ prefix: "tenants/eu/" }))))

runMediaStorageConformance("S3", onS3)
runMediaStagingConformance("S3", onS3)

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * seed + (i >> 8)) % 251)

/** Every object key in the bucket, read with the test's own client. */
const keysIn = (s3: TestS3) =>
  Effect.promise(async () => {
    const client = new S3Client({
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
    })
    const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))
    client.destroy()
    return (page.Contents ?? []).map((object) => object.Key).sort()
  })

const ports = (s3: TestS3, options: { readonly prefix?: string; readonly accessKeyId?: string } = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => S3MediaStorage.makeClient(s3.settings(options))),
    (client) => Effect.sync(() => client.destroy())
  ).pipe(
    Effect.map((client) => ({
      storage: S3MediaStorage.make(client, s3.settings(options)),
      staging: S3MediaStorage.makeStaging(client, s3.settings(options))
    }))
  )

describe("S3MediaStorage", () => {
  it.effect("objects live under <prefix><storage_slug>/<key>, staged uploads under <prefix>_staging/", () =>
    Effect.gen(function* () {
      const s3 = yield* startS3()
      const { staging, storage } = yield* ports(s3, { prefix: "media" })
      yield* storage.put("acme", "0a1b.webp", bytes(10, 3))
      yield* storage.put("globex", "0a1b.webp", bytes(10, 3))
      const staged = yield* staging.write(...chunksOf(Stream.make(bytes(10, 5))))
      expect(yield* keysIn(s3)).toEqual([
        `media/_staging/${staged.key}`,
        "media/acme/0a1b.webp",
        "media/globex/0a1b.webp"
      ])
      // A name that would leave the layout is refused before any request.
      expect(yield* Effect.flip(storage.put("../x", "k.webp", bytes(1, 1)))).toMatchObject({ reason: "unavailable" })
      expect(yield* Effect.flip(staging.read("a/b"))).toMatchObject({ reason: "unavailable" })
    })
  )

  it.effect("reads stream the object in chunks, without reading it whole first", () =>
    Effect.gen(function* () {
      const s3 = yield* startS3()
      const { storage } = yield* ports(s3)
      const data = bytes(3 * 1024 * 1024, 7)
      yield* storage.put("acme", "big.webp", data)
      const chunks = yield* Stream.runCollect(storage.read("acme", "big.webp"))
      expect(chunks.length).toBeGreaterThan(1)
      expect(Buffer.compare(Buffer.concat(chunks), Buffer.from(data))).toBe(0)
      // Taking the first chunk and stopping releases the response.
      const first = yield* Stream.runHead(storage.read("acme", "big.webp"))
      expect(Option.getOrThrow(first).byteLength).toBeGreaterThan(0)
    })
  )

  it.effect(
    "staging streams an upload larger than one part as a multipart upload; a failure after a part, or an interruption, leaves no object",
    () =>
      Effect.gen(function* () {
        const s3 = yield* startS3()
        const { staging } = yield* ports(s3)
        const data = bytes(11 * 1024 * 1024, 13)
        const chunked = (upTo: number) =>
          Stream.fromIterable(
            Array.from({ length: Math.ceil(upTo / 65_536) }, (_, i) =>
              data.subarray(i * 65_536, Math.min(upTo, (i + 1) * 65_536))
            )
          )
        const staged = yield* staging.write(...chunksOf(chunked(data.byteLength)))
        expect(staged.bytes).toBe(data.byteLength)
        expect(staged.sha256).toBe(createHash("sha256").update(data).digest("hex"))
        expect(Buffer.compare(Buffer.from(yield* staging.read(staged.key)), Buffer.from(data))).toBe(0)
        // 6 MB then an error: the first 5 MB part has been uploaded when the stream fails.
        const failed = yield* Effect.flip(
          staging.write(...chunksOf(Stream.concat(chunked(6 * 1024 * 1024), Stream.fail("client went away" as const))))
        )
        expect(failed).toBe("client went away")
        // Interrupted mid-upload (the client went away without an error): no object either.
        const started = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(
          staging.write(
            ...chunksOf(
              Stream.concat(
                chunked(6 * 1024 * 1024),
                Stream.concat(Stream.fromEffect(Deferred.succeed(started, undefined)).pipe(Stream.drain), Stream.never)
              )
            )
          )
        )
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        expect((yield* staging.list).map((file) => file.key)).toEqual([staged.key])
        expect(yield* keysIn(s3)).toEqual([`_staging/${staged.key}`])
      })
  )

  it.effect("an unknown access key is denied (403) for every call, staging too", () =>
    Effect.gen(function* () {
      const s3 = yield* startS3()
      const { staging, storage } = yield* ports(s3, { accessKeyId: "AKIAWRONGWRONGWRONG" })
      for (const error of [
        yield* Effect.flip(storage.put("acme", "a.webp", bytes(10, 1))),
        yield* Effect.flip(storage.exists("acme", "a.webp")),
        yield* Effect.flip(Stream.runDrain(storage.read("acme", "a.webp"))),
        yield* Effect.flip(staging.write(...chunksOf(Stream.make(bytes(10, 1))))),
        yield* Effect.flip(staging.list)
      ]) {
        expect(error).toMatchObject({ _tag: "MediaStorageError", reason: "denied" })
        expect(error.message).not.toContain(s3.secretAccessKey)
      }
      expect(yield* keysIn(s3)).toEqual([])
    })
  )

  it.effect(
    "a missing bucket is denied (the operator must fix it); an endpoint that does not answer is unavailable",
    () =>
      Effect.gen(function* () {
        const s3 = yield* startS3()
        const noBucket = S3MediaStorage.makeClient({ ...s3.settings(), bucket: "no-such-bucket" })
        const put = yield* Effect.flip(
          S3MediaStorage.make(noBucket, { ...s3.settings(), bucket: "no-such-bucket" }).put(
            "acme",
            "a.webp",
            bytes(1, 1)
          )
        )
        noBucket.destroy()
        expect(put).toMatchObject({ reason: "denied", message: expect.stringContaining("NoSuchBucket") })
        expect(yield* Effect.flip(S3MediaStorage.probe({ ...s3.settings(), bucket: "no-such-bucket" }))).toMatchObject({
          reason: "not_found"
        })
        yield* S3MediaStorage.probe(s3.settings())

        const closedPort = yield* Effect.callback<number>((resume) => {
          const server = createServer().listen(0, "127.0.0.1", () => {
            const port = (server.address() as { port: number }).port
            server.close(() => resume(Effect.succeed(port)))
          })
        })
        const down = { ...s3.settings(), endpoint: Option.some(`http://127.0.0.1:${closedPort}`) }
        const client = S3MediaStorage.makeClient(down)
        const error = yield* Effect.flip(S3MediaStorage.make(client, down).exists("acme", "a.webp"))
        client.destroy()
        expect(error).toMatchObject({ reason: "unavailable" })
        expect(Redacted.value(s3.settings().keys.pipe(Option.getOrThrow).secretAccessKey)).toBe(s3.secretAccessKey)
      })
  )
})
