import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { type IdempotencyStore, ImportService, JobService, type Transactor, WriteCommand } from "@catalog-sync/core"
import { Effect, type Layer } from "effect"
import type { Authentication } from "@catalog-sync/contract"
import { Api } from "@catalog-sync/contract"
import { writeEnvelope } from "../Writes.js"
import { jobHandlers } from "../Jobs/Http.js"

/** Handlers of POST /imports and of the import jobs under /imports. */
export const ImportsHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"catalog-sync", "imports">,
  never,
  | ImportService.ImportService
  | JobService.JobService
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
  | Authentication
> = HttpApiBuilder.group(Api, "imports", (handlers) =>
  Effect.gen(function* () {
    const imports = yield* ImportService.ImportService
    const endpoints = jobHandlers(yield* JobService.JobService, "import")
    return handlers
      .handle("list", endpoints.list)
      .handle("get", endpoints.get)
      .handle("retry", endpoints.retry)
      .handle("submit", ({ headers, payload }) =>
        writeEnvelope(
          headers["idempotency-key"],
          payload,
          WriteCommand.map(imports.submitCommand(payload), (submitted) =>
            submitted._tag === "DryRun" ? { report: submitted.report } : { job: submitted.job }
          )
        )
      )
  })
)
