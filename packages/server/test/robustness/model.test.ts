import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import fc from "fast-check"
import { call, TestServer, TestServerLive, testDatabase } from "../TestServer.js"
import { commands, emptyModel, type Model, readFeed, type Real } from "./CatalogModel.js"
import { scaled, seed } from "./Soak.js"

// Jobs are picked up quickly (imports are waited for in the model) and the documented rate limits are
// lifted: they have their own tests, and a 429 here would only be noise in the model's predictions.
const Server = TestServerLive.pipe(
  Layer.provide(
    Layer.setConfigProvider(
      ConfigProvider.fromMap(
        new Map([
          ["JOB_POLL_MILLISECONDS", "10"],
          ["BENCHMARK_RATE_LIMIT_MULTIPLIER", "1000"]
        ])
      ).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
    )
  )
)

const scopes = ["catalog:read", "catalog:write", "stock:read", "stock:write"]

layer(Server, { excludeTestServices: true, timeout: 600_000 })(`stateful model test on ${testDatabase}`, (it) => {
  it.effect(
    "after every command the server agrees with an in-memory model of the catalog, its stock and its feed",
    () =>
      Effect.gen(function* () {
        const { url, admin, tenant } = yield* TestServer
        const runs = scaled(30, 300)
        const used = seed(20261122)
        console.log(`model test: seed ${used}, ${runs} command sequences (SOAK_SEED=${used} replays it)`)
        const figures = { commands: 0, requests: 0, changes: 0 }

        // Every sequence starts on a fresh company, so that fast-check may replay and shrink it.
        const setup = () =>
          Effect.runPromise(
            Effect.gen(function* () {
              const t = yield* tenant({ stock_package: true, inventory_module: true })
              const location = yield* admin.createLocation(t.companyId, "Warehouse")
              yield* admin.assignLocation(t.connectionId, location.id, true)
              const token = yield* t.key(scopes)
              const http: Real["http"] = (method, path, options = {}) =>
                Effect.runPromise(
                  call(url, method, path, {
                    token,
                    ...(options.body === undefined ? {} : { body: options.body }),
                    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey })
                  })
                )
              const first = yield* call(url, "GET", "/categories", { token })
              const model = emptyModel()
              const real: Real = {
                http,
                connectionId: t.connectionId,
                locationId: location.id,
                cursor: first.body.change_cursor,
                delivered: new Map(),
                figures
              }
              return { model, real }
            })
          )

        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.commands(commands, { maxCommands: scaled(30, 60), size: "max" }), async (sequence) => {
              let state: { model: Model; real: Real } | undefined
              await fc.asyncModelRun(async () => (state = await setup()), sequence)
              // The feed, read once more at the end, holds every change not read yet, exactly once.
              await readFeed(state!.model, state!.real, 100)
            }),
            { numRuns: runs, seed: used, endOnFailure: !process.env.SOAK }
          )
        )
        console.log(
          `model test: ${figures.commands} commands checked, ${figures.requests} requests, ${figures.changes} feed changes matched`
        )
        expect(figures.commands).toBeGreaterThan(runs)
      }),
    scaled(60_000, 1_800_000)
  )
})
