/**
 * The model harness's system under test over HTTP: a running server, driven as connectors drive it (one
 * key per connection, an Idempotency-Key on every write, imports polled to their end). Every answer must
 * be in the spec's envelope: a 5xx or an answer without `request_id` fails the run whatever the model says.
 */
import type { ModelHarness, Probe, ReferenceModel } from "@catalog-sync/core/testing"
import { Effect } from "effect"
import { at, isObject, record, str } from "../Json.js"
import { call, type Reply, type TestServer } from "../TestServer.js"
import * as ModelAnswers from "./ModelAnswers.js"

type Server = typeof TestServer.Service

/** A reply as the harness reads answers: accepted with the envelope, or refused with the error body. */
const answerOf = (what: string, reply: Reply): Probe.Answer<unknown> => {
  if (reply.status >= 500 || !isObject(reply.body) || typeof reply.body.request_id !== "string")
    throw new Error(`${what}: ${reply.status} without the spec's envelope: ${reply.text.slice(0, 300)}`)
  if (reply.status < 300) {
    const { request_id: _, ...envelope } = reply.body
    return { _tag: "Accepted", value: envelope }
  }
  const error = record(reply.body, "error")
  const details = error.details
  const currentRevision = at(details, "current_revision")
  return {
    _tag: "Refused",
    code: str(error, "code"),
    paths: Array.isArray(details) ? details.map((issue) => str(issue, "path")) : [],
    ...(typeof currentRevision === "number" ? { currentRevision } : {}),
    error
  }
}

/** The accepted value read by `read`; a refusal as it is. */
const readAnswer = <A>(answer: Probe.Answer<unknown>, read: (value: unknown) => A): Probe.Answer<A> =>
  answer._tag === "Accepted" ? { _tag: "Accepted", value: read(answer.value) } : answer

/** Two new companies with stock (A: connections a1 and a2, B: b1), their keys and locations, per sequence. */
export const httpTarget = (server: Server, specs: typeof ReferenceModel.actorSpecs): ModelHarness.Target => ({
  begin: Effect.gen(function* () {
    const { url, admin, inventoryAdmin, tenant } = server
    const companies = {
      A: yield* tenant({ stock_package: true, inventory_module: true }),
      B: yield* tenant({ stock_package: true, inventory_module: true })
    }
    const connections = {
      a1: companies.A.connectionId,
      a2: yield* companies.A.newConnection,
      b1: companies.B.connectionId
    }
    const locations = {
      A: (yield* admin.createLocation(companies.A.companyId, "Warehouse")).id as string,
      B: (yield* admin.createLocation(companies.B.companyId, "Warehouse")).id as string
    }
    const tokens = {} as Record<ReferenceModel.ActorName, string>
    for (const actor of ["a1", "a2", "b1"] as const) {
      const spec = specs[actor]
      yield* admin.assignLocation(connections[actor], locations[spec.company], spec.writesStock)
      tokens[actor] = yield* companies[spec.company].key(spec.scopes, { connectionId: connections[actor] })
    }
    const send = (
      actor: ReferenceModel.ActorName,
      method: "GET" | "POST" | "DELETE",
      path: string,
      options: { readonly body?: unknown; readonly key?: string } = {}
    ) =>
      Effect.map(
        call(url, method, path, {
          token: tokens[actor],
          ...(options.body === undefined ? {} : { body: options.body }),
          ...(options.key === undefined ? {} : { idempotencyKey: options.key })
        }),
        (reply) => answerOf(`${method} ${path}`, reply)
      )
    return {
      connectionOf: (actor) => connections[actor],
      locationOf: (company) => locations[company],
      upsert: (actor, resource, body, key) =>
        Effect.map(send(actor, "POST", `/${resource}/upsert`, { body, key }), (answer) =>
          readAnswer(answer, ModelAnswers.writeAnswer)
        ),
      archive: (actor, id, expectedRevision, key) =>
        Effect.map(
          send(actor, "DELETE", `/products/${id}`, { body: { expected_revision: expectedRevision }, key }),
          (answer) => readAnswer(answer, ModelAnswers.writeAnswer)
        ),
      stock: (actor, body, key) =>
        Effect.map(send(actor, "POST", "/inventory", { body, key }), (answer) =>
          readAnswer(answer, ModelAnswers.stockAnswer)
        ),
      reserve: (company, cardId, reserved) =>
        Effect.map(
          Effect.result(inventoryAdmin.reserve(companies[company].companyId, cardId, locations[company], { reserved })),
          (result): Probe.Answer<ModelHarness.CardAnswer> =>
            result._tag === "Success"
              ? { _tag: "Accepted", value: result.success }
              : {
                  _tag: "Refused",
                  code: result.failure.code,
                  paths: [],
                  error: result.failure
                }
        ),
      importRecords: (actor, body, key) =>
        Effect.gen(function* () {
          const submitted = yield* send(actor, "POST", "/imports", { body, key })
          // A dry run answers its report at once; a submitted job is polled to its end.
          if (submitted._tag === "Refused" || at(submitted.value, "report") !== undefined)
            return readAnswer(submitted, ModelAnswers.importAnswer)
          const jobId = str(submitted.value, "job", "id")
          for (let i = 0; i < 2000; i++) {
            const detail = readAnswer(yield* send(actor, "GET", `/imports/${jobId}`), ModelAnswers.importAnswer)
            if (detail._tag === "Refused" || ["completed", "failed", "paused"].includes(detail.value.job?.state ?? ""))
              return detail
            yield* Effect.sleep("10 millis")
          }
          return yield* Effect.die(new Error(`import ${jobId} did not finish`))
        }),
      feed: (actor, cursor, limit) =>
        Effect.map(
          send(actor, "GET", `/changes?limit=${limit}${cursor === undefined ? "" : `&cursor=${cursor}`}`),
          (answer) => readAnswer(answer, ModelAnswers.feedAnswer)
        ),
      list: (actor, resource, externalId) =>
        Effect.map(
          send(
            actor,
            "GET",
            `/${resource}?limit=100${externalId === undefined ? "" : `&external_id=${encodeURIComponent(externalId)}`}`
          ),
          (answer) => readAnswer(answer, ModelAnswers.recordsAnswer)
        ),
      get: (actor, resource, id) =>
        Effect.map(send(actor, "GET", `/${resource}/${id}`), (answer) =>
          readAnswer(answer, (value) => ModelAnswers.recordAnswer(at(value, "record")))
        ),
      inventory: (actor) =>
        Effect.map(send(actor, "GET", "/inventory?limit=100"), (answer) => readAnswer(answer, ModelAnswers.cardsAnswer))
    } satisfies ModelHarness.Session
  })
})
