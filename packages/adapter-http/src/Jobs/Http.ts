import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
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
import { servicesAtBuild } from "../GroupServices.js"

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

type UseCaseError<UseCase extends "list" | "get"> = Effect.Error<ReturnType<JobService.JobService["Service"][UseCase]>>
type RetryError =
  ReturnType<JobService.JobService["Service"]["retryCommand"]> extends WriteCommand.WriteCommand<
    infer _A,
    infer E,
    infer _R
  >
    ? E
    : never

/** The list / get / retry handlers of a job group; `kind` narrows /imports to import jobs. */
export const jobHandlers = (
  jobs: JobService.JobService["Service"],
  kind: Job.JobKind | undefined
): {
  readonly list: Handler<
    { readonly query: { readonly limit?: number | undefined; readonly cursor?: string | undefined } },
    JobService.JobPage & { readonly request_id: string },
    ApiErrorOf<UseCaseError<"list">>
  >
  readonly get: Handler<
    { readonly params: { readonly id: string } },
    JobService.JobDetail & { readonly request_id: string },
    ApiErrorOf<UseCaseError<"get">>
  >
  readonly retry: Handler<
    { readonly params: { readonly id: string }; readonly headers: { readonly "idempotency-key": string } },
    { readonly job: Job.JobRecord; readonly request_id: string; readonly replayed?: boolean },
    ApiErrorOf<WriteFailure<RetryError>>
  >
} => ({
  list: ({
    query
  }: {
    readonly query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
  }) =>
    Effect.gen(function* () {
      const page = yield* api(jobs.list(kind, { limit: query.limit ?? Common.defaultLimit, cursor: query.cursor }))
      return { request_id: yield* requestId, ...page }
    }),
  get: ({ params }: { readonly params: { readonly id: string } }) =>
    Effect.gen(function* () {
      const detail = yield* api(jobs.get(params.id, kind))
      return { request_id: yield* requestId, ...detail }
    }),
  retry: ({
    params,
    headers
  }: {
    readonly params: { readonly id: string }
    readonly headers: { readonly "idempotency-key": string }
  }) =>
    writeEnvelope(
      headers["idempotency-key"],
      {},
      WriteCommand.map(jobs.retryCommand(params.id, kind), (job) => ({ job }))
    )
})

/** Handlers of GET /jobs, GET /jobs/{id} and POST /jobs/{id}/retry. */
export const JobsHttpLive: Layer.Layer<
  HttpApiGroup.Service<"catalog-sync", "jobs">,
  never,
  JobService.JobService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = servicesAtBuild(
  HttpApiBuilder.group(Api, "jobs", (handlers) =>
    Effect.gen(function* () {
      const endpoints = jobHandlers(yield* JobService.JobService, undefined)
      return handlers.handle("list", endpoints.list).handle("get", endpoints.get).handle("retry", endpoints.retry)
    })
  )
)
