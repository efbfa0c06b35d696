import { MediaErrors, MediaStorage } from "@catalog-sync/core"
import { Clock, Effect, Exit, Layer, Stream } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { createReadStream } from "node:fs"
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises"
import { join } from "node:path"

const denied = new Set(["EACCES", "EPERM", "EROFS"])

/**
 * Media and staged uploads are the companies' data, served by the server alone: folders it creates are
 * its user's only (0700), files readable by it alone (0600).
 */
export const privateFolder = 0o700
/** The mode of the files it writes (0600). */
export const privateFile = 0o600

/**
 * A file system failure as a MediaStorageError: a refusal of access (EACCES, EPERM, EROFS) is `denied`,
 * which pauses the company's image processing until an operator fixes the folder and retries.
 */
export const storageError = (cause: unknown, what: string) => {
  const code = (cause as { code?: string } | null)?.code
  return new MediaErrors.MediaStorageError({
    reason: code === "ENOENT" ? "not_found" : code !== undefined && denied.has(code) ? "denied" : "unavailable",
    message: `${what}: ${code ?? "error"}`
  })
}

// Folder and key names come from core (storage slugs and hex keys); anything else would escape the root.
const safe = (segment: string) => {
  if (!/^[A-Za-z0-9._-]+$/.test(segment) || segment === "." || segment === "..")
    throw Object.assign(new Error("unsafe name"), { code: "EINVAL" })
  return segment
}

const attempt = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (cause) => storageError(cause, what) })

/** Writes `data` to a temp file in the same folder, flushes it, then renames it over `target` (atomic). */
const atomicWrite = async (dir: string, target: string, data: Uint8Array) => {
  await mkdir(dir, { recursive: true, mode: privateFolder })
  const temp = join(dir, `.tmp-${randomUUID()}`)
  try {
    const handle = await open(temp, "wx", privateFile)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, target)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** MediaStorage under `<root>/<folder>/<key>`: atomic writes (temp file + rename), streamed reads. */
export const make = (root: string) =>
  MediaStorage.MediaStorage.of({
    put: (folder, key, data) =>
      attempt("cannot write the media file", () =>
        atomicWrite(join(root, safe(folder)), join(root, safe(folder), safe(key)), data)
      ),
    exists: (folder, key) =>
      attempt("cannot read the media folder", () =>
        stat(join(root, safe(folder), safe(key))).then(
          () => true,
          (error: { code?: string }) => (error.code === "ENOENT" ? false : Promise.reject(error))
        )
      ),
    size: (folder, key) =>
      attempt("cannot read the media folder", () =>
        stat(join(root, safe(folder), safe(key))).then(
          (s) => s.size as number | undefined,
          (error: { code?: string }) => (error.code === "ENOENT" ? undefined : Promise.reject(error))
        )
      ),
    read: (folder, key) =>
      Stream.unwrap(
        Effect.map(
          attempt("cannot read the media file", async () => {
            const path = join(root, safe(folder), safe(key))
            await stat(path)
            return path
          }),
          (path) =>
            Stream.fromAsyncIterable(
              createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Uint8Array>,
              (cause) => storageError(cause, "cannot read the media file")
            )
        )
      ),
    remove: (folder, key) =>
      attempt("cannot remove the media file", () => rm(join(root, safe(folder), safe(key)), { force: true }))
  })

/** A temporary file this old was left by a process that died mid-write: no write takes an hour. */
export const abandonedTemporaryMillis = 60 * 60 * 1000

/**
 * Removes the temporary files of writes that never finished (a crash between the temp file and its
 * rename), in every company folder. Younger ones may be another instance's write in progress.
 * Returns how many were removed.
 */
export const sweepTemporaryFiles = (root: string, nowMillis: number) =>
  attempt("cannot sweep the media folders", async () => {
    const folders = await readdir(root, { withFileTypes: true }).catch((error: { code?: string }) =>
      error.code === "ENOENT" ? [] : Promise.reject(error)
    )
    let removed = 0
    for (const folder of folders.filter((entry) => entry.isDirectory())) {
      const dir = join(root, folder.name)
      for (const name of (await readdir(dir)).filter((n) => n.startsWith(".tmp-"))) {
        const modified = await stat(join(dir, name)).then(
          (s) => s.mtimeMs,
          () => undefined
        )
        if (modified !== undefined && nowMillis - modified > abandonedTemporaryMillis) {
          await rm(join(dir, name), { force: true })
          removed++
        }
      }
    }
    return removed
  })

/** MediaStorage under `root`; at start, a background sweep removes what crashed writes left there. */
export const layer = (root: string): Layer.Layer<MediaStorage.MediaStorage> =>
  Layer.effect(
    MediaStorage.MediaStorage,
    Effect.as(
      Effect.forkScoped(
        Clock.currentTimeMillis.pipe(
          Effect.flatMap((now) => sweepTemporaryFiles(root, now)),
          Effect.tap((removed) =>
            removed > 0
              ? Effect.logInfo(`removed ${removed} temporary media files left by interrupted writes`)
              : Effect.void
          ),
          Effect.catch((error) => Effect.logWarning("media folder sweep failed", error))
        )
      ),
      make(root)
    )
  )

/** A throw of the chunks being staged, told apart from a failure of the file system. */
class SourceFailed {
  constructor(readonly thrown: unknown) {}
}

/**
 * Copies the chunks into the open file as they come, hashing them and keeping the head, with one write in
 * flight while the next chunk is awaited. What the chunks throw becomes a `SourceFailed`; the file system's
 * failures are thrown as they are.
 */
const copyChunks = async (chunks: AsyncIterable<Uint8Array>, handle: FileHandle, signal: AbortSignal) => {
  const hash = createHash("sha256")
  const head: Array<Uint8Array> = []
  let headLength = 0
  let bytes = 0
  let writing: Promise<void> = Promise.resolve()
  let writeFailure: { readonly error: unknown } | undefined
  const iterator = chunks[Symbol.asyncIterator]()
  // Interrupted: a read waiting on the source ends at once (the loop then stops at the signal).
  signal.addEventListener("abort", () => void iterator.return?.().catch(() => undefined), { once: true })
  for (;;) {
    let next: IteratorResult<Uint8Array>
    try {
      next = await iterator.next()
    } catch (thrown) {
      // A write that failed first is the answer: the file system's failure is not the client's.
      await writing
      if (writeFailure !== undefined) throw writeFailure.error
      throw new SourceFailed(thrown)
    }
    signal.throwIfAborted()
    if (next.done === true) break
    const chunk = next.value
    hash.update(chunk)
    bytes += chunk.byteLength
    if (headLength < MediaStorage.headBytes) {
      // A copy: the source may reuse the chunk's memory once it has been written.
      const part = chunk.slice(0, MediaStorage.headBytes - headLength)
      head.push(part)
      headLength += part.byteLength
    }
    await writing
    if (writeFailure !== undefined) {
      await iterator.return?.()
      throw writeFailure.error
    }
    writing = handle.write(chunk).then(
      () => undefined,
      (error: unknown) => void (writeFailure = { error })
    )
  }
  await writing
  if (writeFailure !== undefined) throw writeFailure.error
  return { bytes, sha256: hash.digest("hex"), head: Buffer.concat(head, headLength) }
}

/** MediaStaging under `root`: each upload streams into its own file while its SHA-256 is computed. */
export const makeStaging = (root: string) =>
  MediaStorage.MediaStaging.of({
    write: <E>(chunks: AsyncIterable<Uint8Array>, sourceFailed: (thrown: unknown) => E) =>
      Effect.gen(function* () {
        yield* attempt("cannot create the staging folder", () => mkdir(root, { recursive: true, mode: privateFolder }))
        const key = `${randomUUID()}.upload`
        const path = join(root, key)
        const handle = yield* attempt("cannot create the staged file", () => open(path, "wx", privateFile))
        const copied = yield* Effect.tryPromise({
          try: (signal) => copyChunks(chunks, handle, signal).finally(() => handle.close().catch(() => undefined)),
          catch: (error) =>
            error instanceof SourceFailed
              ? sourceFailed(error.thrown)
              : storageError(error, "cannot write the staged file")
        }).pipe(
          // Failed or interrupted: nothing of the upload stays.
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) ? Effect.void : Effect.promise(() => rm(path, { force: true }))
          )
        )
        return { key, ...copied } satisfies MediaStorage.StagedFile
      }),
    read: (key) => attempt("cannot read the staged file", () => readFile(join(root, safe(key)))),
    remove: (key) => attempt("cannot remove the staged file", () => rm(join(root, safe(key)), { force: true })),
    list: attempt("cannot list the staging folder", async () => {
      const entries = await readdir(root, { withFileTypes: true }).catch((error: { code?: string }) =>
        error.code === "ENOENT" ? [] : Promise.reject(error)
      )
      const files = await Promise.all(
        entries
          .filter((entry) => entry.isFile())
          // A file removed meanwhile (processed, or a failed upload) is simply not listed.
          .map((entry) =>
            stat(join(root, entry.name)).then(
              (s) => ({ key: entry.name, modifiedMillis: s.mtimeMs }),
              () => undefined
            )
          )
      )
      return files.filter((file) => file !== undefined)
    })
  })

/** MediaStaging under `root`. */
export const stagingLayer = (root: string): Layer.Layer<MediaStorage.MediaStaging> =>
  Layer.succeed(MediaStorage.MediaStaging, makeStaging(root))
