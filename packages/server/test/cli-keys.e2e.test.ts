/**
 * Keys made with the admin CLI (another process, its own connections to the SQLite file) while the server
 * runs under load are accepted by the server's very next request, each at once and all together.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { buildServer, runCli, startInstance } from "./Instances.js"
import { str } from "./Json.js"
import { call, testDatabase } from "./TestServer.js"

const scopes = "catalog:read,catalog:write"

/** Writes, reads and imports on one key until interrupted: transactions open on the server's one connection. */
const load = (url: string, token: string, worker: number) =>
  Effect.forever(
    Effect.gen(function* () {
      const n = Math.floor(Math.random() * 1_000)
      yield* call(url, "POST", "/categories/upsert", {
        token,
        body: { external_id: `load-${worker}-${n}`, name: `Load ${n}` }
      })
      yield* call(url, "GET", "/categories?limit=100", { token })
      if (n % 10 === 0)
        yield* call(url, "POST", "/imports", {
          token,
          body: {
            records: Array.from({ length: 50 }, (_, i) => ({
              resource: "categories",
              body: { external_id: `import-${worker}-${n}-${i}`, name: `Imported ${i}` }
            }))
          }
        })
    })
  )

describe.skipIf(testDatabase === "postgres")("keys made with the CLI against a running SQLite server", () => {
  it.live(
    "30 keys made under load are each accepted at once, and all together",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const bundle = yield* buildServer
          // Every refused key's reason is in the server's output (LOG_LEVEL=debug) should one be refused.
          const server = yield* startInstance(bundle, {
            LOG_LEVEL: "debug",
            JOB_POLL_MILLISECONDS: "20",
            BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000"
          })
          const env = { DATA_DIR: server.dataDir }
          const company = yield* runCli(bundle, env, [
            "company",
            "create",
            "--name",
            "Keys",
            "--currency",
            "EUR",
            "--main-language",
            "en",
            "--storage-slug",
            "keys",
            "--scopes",
            scopes
          ])
          const connection = yield* runCli(bundle, env, [
            "connection",
            "create",
            "--company",
            str(company, "id"),
            "--name",
            "ERP"
          ])
          const makeKey = Effect.map(
            runCli(bundle, env, [
              "key",
              "create",
              "--connection",
              str(connection, "id"),
              "--scopes",
              scopes,
              "--days",
              "30"
            ]),
            (created) => str(created, "token")
          )
          const loader = yield* makeKey
          const loading = yield* Effect.forkChild(
            Effect.all(
              Array.from({ length: 6 }, (_, worker) => load(server.url, loader, worker)),
              { concurrency: "unbounded" }
            )
          )
          // Each key is used as soon as the CLI has printed it, four CLIs at a time.
          const first = yield* Effect.all(
            Array.from({ length: 30 }, () =>
              Effect.flatMap(makeKey, (token) =>
                Effect.map(call(server.url, "GET", "/me", { token }), (reply) => ({ token, status: reply.status }))
              )
            ),
            { concurrency: 4 }
          )
          const together = yield* Effect.all(
            first.map(({ token }, i) =>
              Effect.map(
                call(server.url, "POST", "/categories/upsert", { token, body: { external_id: `k-${i}`, name: "K" } }),
                (reply) => reply.status
              )
            ),
            { concurrency: "unbounded" }
          )
          yield* Fiber.interrupt(loading)
          const refused = server
            .output()
            .split("\n")
            .filter((line) => line.includes("authentication refused"))
          expect({ first: first.map((f) => f.status), together, refused }).toEqual({
            first: Array(30).fill(200),
            together: Array(30).fill(200),
            refused: []
          })
        })
      ),
    240_000
  )
})
