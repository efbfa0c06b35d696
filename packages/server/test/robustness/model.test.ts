import { expect, layer } from "@effect/vitest"
import { checkModel, ReferenceModel } from "@catalog-sync/core/testing"
import { Effect } from "effect"
import { TestServer, TestServerWith, testDatabase } from "../TestServer.js"
import { httpTarget } from "./HttpTarget.js"
import { scaled, seed } from "./Soak.js"

// Jobs are picked up quickly (imports are waited for in the model) and the documented rate limits are
// lifted: they have their own tests, and a 429 here would only be noise in the model's predictions.
const Server = TestServerWith({}, { JOB_POLL_MILLISECONDS: "10", BENCHMARK_RATE_LIMIT_MULTIPLIER: "1000" })

// The domain kit's model harness (`@catalog-sync/core/testing`), driven over HTTP: the same commands and
// predictions the adapters' tests run over the ports, here through the whole server.
layer(Server, { excludeTestServices: true, timeout: 600_000 })(`stateful model test on ${testDatabase}`, (it) => {
  it.effect(
    "after every command the server agrees with the reference model of the catalog, its stock and its feed",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        // The adapters' tests run the same harness over the ports (40 sequences on each engine); this run is
        // about the HTTP stack on top of them.
        const runs = scaled(20, 300)
        const used = seed(20261122)
        console.log(`model test: seed ${used}, ${runs} command sequences (SOAK_SEED=${used} replays it)`)
        const figures = yield* checkModel(httpTarget(server, ReferenceModel.actorSpecs), {
          seed: used,
          runs,
          maxCommands: scaled(30, 60),
          // Over HTTP a shrinking step reruns a whole sequence: shrink under soak, report the first failure in CI.
          shrink: process.env.SOAK === "1"
        })
        console.log(
          `model test: ${figures.commands} commands checked, ${figures.requests} requests, ${figures.changes} feed changes matched`
        )
        expect(figures.commands).toBeGreaterThan(runs)
      }),
    scaled(120_000, 1_800_000)
  )
})
