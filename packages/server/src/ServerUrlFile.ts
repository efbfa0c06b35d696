import { Effect, Option } from "effect"
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * `<DATA_DIR>/server-url`: the URL a running server listens on, from the moment it listens until a clean
 * shutdown, so that `catalog-sync quickstart` on the same data folder prints the server's URL whatever PORT
 * it was given. A killed server leaves the file behind: a reader checks that the URL answers before using it.
 */
export const serverUrlFile = (dataDir: string) => join(dataDir, "server-url")

const read = (file: string): Option.Option<string> => {
  try {
    const url = readFileSync(file, "utf8").trim()
    return url === "" ? Option.none() : Option.some(url)
  } catch {
    return Option.none()
  }
}

/** The URL recorded in the data folder, if a server wrote one. */
export const recordedServerUrl = (dataDir: string): Effect.Effect<Option.Option<string>> =>
  Effect.sync(() => read(serverUrlFile(dataDir)))

/**
 * Records `url` for the life of the scope. The file is a convenience: a folder that cannot hold it is a
 * warning, never a failed start. At the end the file goes only if it still names this server (another
 * instance on the same folder may have recorded its own since).
 */
export const recordServerUrl = (dataDir: string, url: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const file = serverUrlFile(dataDir)
        mkdirSync(dataDir, { recursive: true, mode: 0o700 })
        // Written aside and renamed, so that a reader never sees half a URL.
        const partial = `${file}.${process.pid}`
        writeFileSync(partial, `${url}\n`)
        renameSync(partial, file)
        return true
      },
      catch: (error) => (error instanceof Error ? error.message : String(error))
    }).pipe(
      Effect.catch((reason) =>
        Effect.as(
          Effect.logWarning("cannot record the server's URL in the data folder").pipe(
            Effect.annotateLogs({ file: serverUrlFile(dataDir), reason })
          ),
          false
        )
      )
    ),
    (recorded) =>
      Effect.sync(() => {
        const file = serverUrlFile(dataDir)
        if (recorded && Option.contains(read(file), url)) rmSync(file, { force: true })
      })
  )
