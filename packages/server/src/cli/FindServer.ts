import { Effect, Option } from "effect"
import type { ServerConfig } from "../ServerConfig.js"
import { recordedServerUrl } from "../ServerUrlFile.js"
import { localUrl } from "../Startup.js"

/** `path` after any path the URL has: behind a proxy the server may live under a prefix. */
const at = (url: string, path: string) => `${url.replace(/\/+$/, "")}${path}`

/** The status of a GET within two seconds; none when nothing answers (or the URL is not one). */
const statusOf = (url: string, headers: Record<string, string> = {}): Effect.Effect<Option.Option<number>> =>
  Effect.promise(() =>
    fetch(url, { headers, signal: AbortSignal.timeout(2_000) }).then(
      async (response) => {
        await response.body?.cancel()
        return Option.some(response.status)
      },
      () => Option.none()
    )
  )

/** GET /health answers 200: a server serves requests at `url`. */
const answers = (url: string): Effect.Effect<boolean> => Effect.map(statusOf(at(url, "/health")), Option.contains(200))

/**
 * The URL to give a client: `--url` when given; else the one the server running on this data folder
 * recorded, if it answers (a killed server leaves a stale file); else `http://HOST:PORT` of the settings.
 */
export const findServer = (config: ServerConfig, given: Option.Option<string>): Effect.Effect<string> =>
  Effect.gen(function* () {
    if (Option.isSome(given)) return given.value
    const recorded = yield* recordedServerUrl(config.dataDir)
    if (Option.isSome(recorded) && (yield* answers(recorded.value))) return recorded.value
    return localUrl(config.host, config.port)
  })

/**
 * The status of GET /api/v1/me with `key` at `url`: 200 when the server there uses this command's
 * database, another when something else answers there; none when nothing answers.
 */
export const checkKey = (url: string, key: string): Effect.Effect<Option.Option<number>> =>
  statusOf(at(url, "/api/v1/me"), { authorization: `Bearer ${key}` })
