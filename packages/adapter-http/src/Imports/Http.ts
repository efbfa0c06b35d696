import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import {
  Decode,
  type IdempotencyStore,
  Import,
  ImportService,
  JobService,
  type Transactor,
  WriteCommand
} from "@catalog-sync/core"
import { Effect, type Layer } from "effect"
import type { Authentication } from "@catalog-sync/contract"
import { Api } from "@catalog-sync/contract"
import { rawWrite, writeEnvelope } from "../Writes.js"
import { jobHandlers } from "../Jobs/Http.js"
import { servicesAtBuild } from "../GroupServices.js"

const decodeBody = Decode.decoderOf(Import.ImportBody, "the body")

/** Handlers of POST /imports and of the import jobs under /imports. */
export const ImportsHttpLive: Layer.Layer<
  HttpApiGroup.Service<"catalog-sync", "imports">,
  never,
  | ImportService.ImportService
  | JobService.JobService
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
  | Authentication
> = servicesAtBuild(
  HttpApiBuilder.group(Api, "imports", (handlers) =>
    Effect.gen(function* () {
      const imports = yield* ImportService.ImportService
      const endpoints = jobHandlers(yield* JobService.JobService, "import")
      return handlers
        .handle("list", endpoints.list)
        .handle("get", endpoints.get)
        .handle("retry", endpoints.retry)
        .handleRaw(
          "submit",
          // The records' bodies are each decoded as the job (or the dry run) applies them, with the same bounds.
          rawWrite({ decode: decodeBody, authorize: ImportService.preauthorize }, (payload, { headers }) =>
            writeEnvelope(
              headers["idempotency-key"],
              payload,
              WriteCommand.map(imports.submitCommand(payload), (submitted) =>
                submitted._tag === "DryRun" ? { report: submitted.report } : { job: submitted.job }
              )
            )
          )
        )
    })
  )
)
