/**
 * The load's clients: one per key, each paced to its own rate budget and all together to the company's,
 * after `GET /me` checked that every key belongs to the same connection and carries the same scopes.
 */
import { FetchHttpClient } from "effect/http"
import { Effect } from "effect"
import { type Client, make as makeClient } from "../Client.js"
import * as Pacer from "../Pacer.js"
import { LoadError } from "./LoadError.js"
import type { LoadOptions } from "./Options.js"

/** One client per key, paced per key and together for the company; checks that the keys share a connection. */
export const connect = (options: LoadOptions) =>
  Effect.gen(function* () {
    const company = yield* Pacer.make({ limitFactor: 5 })
    // Pacing should leave the limit unmet: every 429 (retried by the client) is counted for the summary.
    let refused = 0
    const answered = (status: number) => Effect.sync(() => void (status === 429 && refused++))
    const clients: Array<Client> = []
    const principals: Array<{ connection_id: string; scopes: ReadonlyArray<string> }> = []
    for (const apiKey of options.apiKeys) {
      const pacer = { ...Pacer.both(yield* Pacer.make(), company), answered }
      const client = yield* makeClient({
        baseUrl: options.baseUrl,
        apiKey,
        appName: options.appName ?? "catalog-sync-load",
        appVersion: options.appVersion ?? "0.1.0",
        pacer,
        retry: { maxAttempts: 8 }
      }).pipe(Effect.provide(FetchHttpClient.layer))
      principals.push(
        yield* client.me.pipe(
          Effect.map((answer) => answer.principal),
          Effect.mapError(
            (error) =>
              new LoadError({ message: `the key ${clients.length + 1} was refused: ${error.message}`, cause: error })
          )
        )
      )
      clients.push(client)
    }
    const first = principals[0]!
    const scopes = (p: { scopes: ReadonlyArray<string> }) => [...p.scopes].sort().join(",")
    if (principals.some((p) => p.connection_id !== first.connection_id)) {
      return yield* new LoadError({
        message:
          "the keys belong to different connections: give keys of one connection (jobs and idempotency keys are per connection)"
      })
    }
    if (principals.some((p) => scopes(p) !== scopes(first))) {
      return yield* new LoadError({
        message:
          "the keys have different scopes: give keys with the same scopes, so that any of them can resume another's batches"
      })
    }
    return { clients, connectionId: first.connection_id, rateLimited: () => refused }
  })
