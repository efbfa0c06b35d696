/**
 * The images phase, before every record (records reference images only once their media jobs completed):
 * each image uploaded once, at most `maxPending` at a time, and its media job followed to its end. A dry
 * run only checks each file locally.
 */
import { Effect, FileSystem, Stream } from "effect"
import { createHash } from "node:crypto"
import { openAsBlob, statSync } from "node:fs"
import type { MediaInput } from "./Input.js"
import { fatal, isFatal, type LoadError, refusal } from "./LoadError.js"
import { mediaFailure, mediaId } from "./Report.js"
import { type Run, type Settled, tally } from "./Run.js"

const magic: ReadonlyArray<readonly [string, (b: Buffer) => boolean]> = [
  ["jpeg", (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["png", (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ["webp", (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP"]
]

/** Dry run: an image is checked locally (exists, at most 10 MB, JPEG/PNG/WebP); nothing is uploaded. */
const checkImage = (media: MediaInput, settled: Settled) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const key = `check-${media.externalId}`
    const problem = yield* Effect.gen(function* () {
      const info = yield* fs.stat(media.file)
      if (Number(info.size) > 10 * 1024 * 1024) return { code: "payload_too_large", message: "larger than 10 MB" }
      const head = Buffer.from(
        yield* Stream.runCollect(fs.stream(media.file, { bytesToRead: 12 })).pipe(
          Effect.map((chunks) => Buffer.concat(Array.from(chunks)))
        )
      )
      if (!magic.some(([, test]) => test(head)))
        return { code: "unsupported_image_format", message: "not a JPEG, PNG or WebP image" }
      return undefined
    }).pipe(Effect.catch(() => Effect.succeed({ code: "file_not_found", message: "cannot read the file" })))
    if (problem === undefined) return yield* settled(key, tally([["media", "created"]]), [], [])
    return yield* settled(key, tally([["media", "failed"]]), [[mediaId(media), mediaFailure(media, problem)]], [])
  }).pipe(Effect.orDie)

/** The Idempotency-Key of an image upload: its fields and the file's size and time (a changed file is a new upload). */
const mediaKey = (media: MediaInput, salt: string) => {
  let stamp = "missing"
  try {
    const info = statSync(media.file)
    stamp = `${info.size}:${Math.round(info.mtimeMs)}`
  } catch {
    // The upload will report the missing file.
  }
  return `csm-${createHash("sha256").update(`${salt}\n${media.externalId}\n${media.name}\n${media.purpose}\n${stamp}`).digest("hex").slice(0, 48)}`
}

/** Media job failures that a retry may fix; an image refused while processing fails again. */
const retryableMedia: ReadonlySet<string> = new Set([
  "storage_unavailable",
  "internal_error",
  "processing_timeout",
  "storage_denied"
])

/** Uploads one image and waits for its media job. */
const uploadImage = (media: MediaInput, run: Run): Effect.Effect<void, LoadError> =>
  Effect.gen(function* () {
    const key = mediaKey(media, run.salt)
    if (run.state.done.has(key)) return
    const failed = (error: { code: string; message: string; details?: unknown }) =>
      run.settled(key, tally([["media", "failed"]]), [[mediaId(media), mediaFailure(media, error)]], [])
    let jobId = run.state.sent.get(key)
    if (jobId === undefined) {
      const file = yield* Effect.tryPromise(() => openAsBlob(media.file)).pipe(Effect.result)
      if (file._tag === "Failure") return yield* failed({ code: "file_not_found", message: "cannot read the file" })
      const answer = yield* Effect.result(
        run.tracker.submitting(
          run
            .next()
            .media.upload({ external_id: media.externalId, name: media.name, purpose: media.purpose }, file.success, {
              idempotencyKey: key
            })
        )
      )
      if (answer._tag === "Failure") {
        if (isFatal(answer.failure)) return yield* Effect.fail(fatal(`uploading ${media.file}`)(answer.failure))
        return yield* failed(refusal(answer.failure))
      }
      jobId = answer.success.job.id
      yield* run.log({ e: "sent", key, job: jobId })
    }
    const outcome = yield* Effect.result(run.settleJob(jobId, (job) => retryableMedia.has(job.failure?.code ?? "")))
    if (outcome._tag === "Failure")
      return yield* Effect.fail(fatal(`waiting for the media job of ${media.file}`)(outcome.failure))
    const job = outcome.success.end.job
    if (job.state === "completed") return yield* run.settled(key, tally([["media", "created"]]), [], [[mediaId(media)]])
    return yield* failed(job.failure ?? { code: "job_not_finished", message: `the media job ended ${job.state}` })
  })

/** Sends (or, in a dry run, checks) every image of the load, in external_id order. */
export const sendImages = (
  run: Run,
  images: ReadonlyMap<string, MediaInput>
): Effect.Effect<void, LoadError, FileSystem.FileSystem> =>
  Effect.suspend(() => {
    const media = Array.from(images.values()).sort((a, b) =>
      a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0
    )
    if (media.length > 0) run.progress.start("media")
    return Effect.forEach(media, (item) => (run.dryRun ? checkImage(item, run.settled) : uploadImage(item, run)), {
      concurrency: run.maxPending,
      discard: true
    })
  })
