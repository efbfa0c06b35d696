import { Effect, Layer, Option } from "effect"
import { CatalogService } from "../src/Catalog/CatalogService.js"
import type { Mappings } from "../src/Catalog/Mappings.js"
import type { ImportBody } from "../src/Imports/Import.js"
import { ImportService } from "../src/Imports/ImportService.js"
import { JobKinds } from "../src/Jobs/JobKinds.js"
import { JobService } from "../src/Jobs/JobService.js"
import { JobStore } from "../src/Jobs/JobStore.js"
import { IdsLive } from "../src/Shared/Ids.js"
import type { Scope } from "../src/Shared/Scope.js"
import { InMemory, InMemoryJobs } from "../src/testing.js"
import { registeredTenant } from "./support.js"

/** Imports alone register a job kind here: no media job is ever made. */
const ImportJobsOnly = Layer.effect(
  JobKinds,
  Effect.map(ImportService, (imports) => ({
    import: imports.jobKind,
    media: { ...imports.jobKind, process: () => Effect.die(new Error("no media jobs in these tests")) }
  }))
)

const MemoryPorts = Layer.mergeAll(InMemory.layer, InMemoryJobs.layer, InMemory.accountsLayer)

/** The import use cases over in-memory ports, the mappings port optionally wrapped (`around`). */
export const testLayerWith = (around?: Layer.Layer<Mappings, never, Mappings>) =>
  Layer.mergeAll(JobService.Default).pipe(
    Layer.provideMerge(ImportJobsOnly),
    Layer.provideMerge(ImportService.Default),
    Layer.provideMerge(CatalogService.Default),
    // One memory store for both: a layer is built once per graph, and the later merged Mappings wins.
    Layer.provideMerge(
      around === undefined ? MemoryPorts : Layer.merge(MemoryPorts, Layer.provide(around, MemoryPorts))
    ),
    Layer.provideMerge(IdsLive)
  )

export const TestLayer = testLayerWith()

/** A company and connection the accounts know of, and a principal of that connection. */
export const tenant = (scopes?: ReadonlyArray<Scope>) =>
  registeredTenant(
    ["catalog:read", "catalog:write", "prices:read", "prices:write", "costs:read", "costs:write"],
    scopes
  )

export const submit = (body: ImportBody) => Effect.flatMap(ImportService, (s) => s.submit(body))

/** Runs every claimable job to its end, as a worker would. */
export const work = Effect.gen(function* () {
  const jobs = yield* JobStore
  const imports = yield* ImportService
  for (;;) {
    const claimed = yield* jobs.claim({
      workerId: "worker",
      nowMillis: Date.now(),
      leaseMillis: 60_000,
      at: new Date().toISOString()
    })
    if (Option.isNone(claimed)) return
    yield* imports.process(claimed.value, "worker", 60_000)
  }
})

export const queued = (body: ImportBody) =>
  Effect.gen(function* () {
    const submitted = yield* submit(body)
    if (submitted._tag !== "Queued") throw new Error("expected a job")
    return submitted.job
  })

export const detail = (id: string) => Effect.flatMap(JobService, (s) => s.get(id))
