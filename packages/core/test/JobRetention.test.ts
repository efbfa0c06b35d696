import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { JobService } from "../src/Jobs/JobService.js"
import { purgeFinishedImports } from "../src/Jobs/JobRetention.js"
import { as } from "./support.js"
import { queued, tenant, TestLayer, work } from "./importSupport.js"

const day = 24 * 60 * 60 * 1000

layer(TestLayer)("job retention", (it) => {
  it.effect(
    "finished import jobs past the retention go with their reports, a bounded number per run; younger and pending ones stay",
    () =>
      Effect.gen(function* () {
        const who = yield* tenant()
        const record = (i: number) => ({
          records: [{ resource: "categories" as const, body: { external_id: `c${i}`, name: "C" } }]
        })
        const old = yield* Effect.forEach([0, 1, 2, 3, 4], (i) => queued(record(i)).pipe(as(who)))
        yield* work
        yield* TestClock.adjust(6 * day)
        const young = yield* queued(record(5)).pipe(as(who))
        yield* work
        const waiting = yield* queued(record(6)).pipe(as(who))
        yield* TestClock.adjust(2 * day)
        const ids = Effect.map(
          Effect.flatMap(JobService, (jobs) => jobs.list("import", { limit: 100 })).pipe(as(who)),
          (page) => page.records.map((job) => job.id)
        )
        const purge = purgeFinishedImports({ retentionMillis: 7 * day, jobsPerBatch: 2, batchesPerRun: 2 })
        expect(yield* purge).toBe(4)
        expect(yield* purge).toBe(1)
        expect(yield* purge).toBe(0)
        expect([...(yield* ids)].sort()).toEqual([young.id, waiting.id].sort())
        const gone = yield* Effect.flip(Effect.flatMap(JobService, (jobs) => jobs.get(old[0]!.id)).pipe(as(who)))
        expect(gone._tag).toBe("RecordNotFound")
      })
  )
})
