import { HttpApiBuilder, type HttpApiGroup, type HttpServerRequest } from "@effect/platform"
import {
  type IdempotencyStore,
  type Job,
  JobService,
  type Principal,
  type Transactor,
  WriteCommand
} from "@catalog-sync/core"
import { Effect, type Layer } from "effect"
import type { Authentication } from "@catalog-sync/contract"
import { Api, Common } from "@catalog-sync/contract"
import { api, type ApiErrorOf } from "../ErrorResponses.js"
import { type WriteFailure, writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"

type Handler<I, A, E> = (
  input: I
) => Effect.Effect<
  A,
  E,
  | Principal.CurrentPrincipal
  | HttpServerRequest.HttpServerRequest
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
>

type UseCaseError<UseCase extends "list" | "get"> = Effect.Effect.Error<ReturnType<JobService.JobService[UseCase]>>
type RetryError =
  ReturnType<JobService.JobService["retryCommand"]> extends WriteCommand.WriteCommand<infer _A, infer E, infer _R>
    ? E
    : never

/** The list / get / retry handlers of a job group; `kind` narrows /imports to import jobs. */
export const jobHandlers = (
  jobs: JobService.JobService,
  kind: Job.JobKind | undefined
): {
  readonly list: Handler<
    { readonly urlParams: { readonly limit?: number | undefined; readonly cursor?: string | undefined } },
    JobService.JobPage & { readonly request_id: string },
    ApiErrorOf<UseCaseError<"list">>
  >
  readonly get: Handler<
    { readonly path: { readonly id: string } },
    JobService.JobDetail & { readonly request_id: string },
    ApiErrorOf<UseCaseError<"get">>
  >
  readonly retry: Handler<
    { readonly path: { readonly id: string }; readonly headers: { readonly "idempotency-key": string } },
    { readonly job: Job.JobRecord; readonly request_id: string; readonly replayed?: boolean },
    ApiErrorOf<WriteFailure<RetryError>>
  >
} => ({
  list: ({
    urlParams
  }: {
    readonly urlParams: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
  }) =>
    Effect.gen(function* () {
      const page = yield* api(
        jobs.list(kind, { limit: urlParams.limit ?? Common.defaultLimit, cursor: urlParams.cursor })
      )
      return { request_id: yield* requestId, ...page }
    }),
  get: ({ path }: { readonly path: { readonly id: string } }) =>
    Effect.gen(function* () {
      const detail = yield* api(jobs.get(path.id, kind))
      return { request_id: yield* requestId, ...detail }
    }),
  retry: ({
    path,
    headers
  }: {
    readonly path: { readonly id: string }
    readonly headers: { readonly "idempotency-key": string }
  }) =>
    writeEnvelope(
      headers["idempotency-key"],
      {},
      WriteCommand.map(jobs.retryCommand(path.id, kind), (job) => ({ job }))
    )
})

/** Handlers of GET /jobs, GET /jobs/{id} and POST /jobs/{id}/retry. */
export const JobsHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"catalog-sync", "jobs">,
  never,
  JobService.JobService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = HttpApiBuilder.group(Api, "jobs", (handlers) =>
  Effect.gen(function* () {
    const endpoints = jobHandlers(yield* JobService.JobService, undefined)
    return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handle("retry", endpoints.retry)
  })
)
