/**
 * The model harness's system under test over a layer of the ports: the use cases (catalog, inventory,
 * the platform's reservations, imports and their jobs, the change feed) as the HTTP API runs them, every
 * write through the write runner with its Idempotency-Key.
 */
import { Clock, Context, Effect, Layer, Option, Result } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import type { CompanySettings } from "../Auth/Company.js"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import { InventoryAdmin } from "../Admin/InventoryAdmin.js"
import type { AuditLog } from "../Audit/AuditLog.js"
import type { CatalogRepository } from "../Catalog/CatalogRepository.js"
import { CatalogService } from "../Catalog/CatalogService.js"
import { decodeStrict, decodeUpsert } from "../Catalog/Decode.js"
import type { Mappings } from "../Catalog/Mappings.js"
import { ChangeFeed } from "../Changes/ChangeFeed.js"
import type { ChangeLog } from "../Changes/ChangeLog.js"
import type { IdempotencyStore } from "../Idempotency/IdempotencyStore.js"
import { ImportBody } from "../Imports/Import.js"
import { ImportService } from "../Imports/ImportService.js"
import type { ImportStore } from "../Imports/ImportStore.js"
import { StockWrite } from "../Inventory/Inventory.js"
import type { InventoryRepository } from "../Inventory/InventoryRepository.js"
import { InventoryService } from "../Inventory/InventoryService.js"
import { JobKinds } from "../Jobs/JobKinds.js"
import { JobService } from "../Jobs/JobService.js"
import { JobStore } from "../Jobs/JobStore.js"
import type { ResourceName } from "../Resources/Resource.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import { Ids, IdsLive } from "../Shared/Ids.js"
import type { Transactor } from "../Shared/Transactor.js"
import { runWrite } from "../Writes/WriteRunner.js"
import type { Session, Target } from "./ModelTarget.js"
import { answer } from "./Probe.js"
import { enabledCompany } from "./World.js"
import { type ActorName, actorNames, actorSpecs, type CompanyName } from "./ReferenceModel.js"

/** The ports the harness drives: the persistence ports, stock, accounts, idempotency, import jobs and the audit log. */
export type ModelPorts =
  | CatalogRepository
  | Mappings
  | Transactor
  | ChangeLog
  | InventoryRepository
  | Accounts
  | IdempotencyStore
  | JobStore
  | ImportStore
  | AuditLog

/** Imports alone register a job kind: the harness queues no media job. */
const importJobsOnly = Layer.effect(
  JobKinds,
  Effect.map(ImportService, (imports) => ({
    import: imports.jobKind,
    media: { ...imports.jobKind, process: () => Effect.die(new Error("the model harness queues no media jobs")) }
  }))
)

/** The use cases the harness drives, over `ports`. */
export const servicesOf = <E, R>(ports: Layer.Layer<ModelPorts, E, R>) =>
  Layer.mergeAll(JobService.Default, ChangeFeed.Default, InventoryService.Default, InventoryAdmin.Default).pipe(
    Layer.provideMerge(importJobsOnly),
    Layer.provideMerge(ImportService.Default),
    Layer.provideMerge(CatalogService.Default),
    Layer.provideMerge(ports),
    Layer.provideMerge(IdsLive)
  )

export type Services = Layer.Success<ReturnType<typeof servicesOf>>

const far = "2999-01-01T00:00:00.000Z"

const hex = (bytes: number) =>
  Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("")

/** Two new companies (A: a1, a2; B: b1), their connections, keys and stock locations, as the platform sets them up. */
const setUp = Effect.gen(function* () {
  const accounts = yield* Accounts
  const at = new Date(yield* Clock.currentTimeMillis).toISOString()
  const settings = {} as Record<CompanyName, CompanySettings>
  const locations = {} as Record<CompanyName, string>
  for (const company of ["A", "B"] as const) {
    const id = globalThis.crypto.randomUUID()
    settings[company] = {
      id: id as CompanyId,
      currency: "EUR",
      main_language: "en",
      languages: ["en", "de"],
      tax_model: "exclusive",
      tax_rates: ["20.00"],
      storage_slug: `kit-${id}`
    }
    yield* accounts.saveCompany(enabledCompany(settings[company], `Company ${company}`, at))
    locations[company] = globalThis.crypto.randomUUID()
    yield* accounts.saveLocation({
      id: locations[company],
      company_id: id as CompanyId,
      name: "Warehouse",
      created_at: at
    })
  }
  const principals = {} as Record<ActorName, Principal>
  for (const name of actorNames) {
    const spec = actorSpecs[name]
    const company = settings[spec.company]
    const connectionId = globalThis.crypto.randomUUID() as ConnectionId
    const keyId = hex(12)
    yield* accounts.saveConnection({ id: connectionId, company_id: company.id, name, enabled: true, created_at: at })
    yield* accounts.insertKey(
      {
        id: keyId,
        company_id: company.id,
        connection_id: connectionId,
        name,
        scopes: spec.scopes,
        created_at: at,
        expires_at: far,
        revoked_at: null
      },
      "kit-unused-hash"
    )
    yield* accounts.assignLocation({
      connection_id: connectionId,
      location_id: locations[spec.company],
      writable: spec.writesStock
    })
    principals[name] = {
      company,
      connectionId,
      keyId,
      scopes: new Set(spec.scopes),
      features: { stock: true }
    }
  }
  return { settings, locations, principals }
})

/** Runs the claimable import jobs until `jobId` is no longer pending, as a worker does. */
export const work = (jobId: string) =>
  Effect.gen(function* () {
    const jobs = yield* JobStore
    const imports = yield* ImportService
    const workerId = yield* Effect.flatMap(Ids, (ids) => ids.next)
    for (let round = 0; round < 1000; round++) {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* jobs.claim({
        workerId,
        nowMillis: now,
        leaseMillis: 60_000,
        at: new Date(now).toISOString()
      })
      if (Option.isNone(claimed)) return
      if (claimed.value.kind === "import") yield* imports.process(claimed.value, workerId, 60_000)
      if (claimed.value.id === jobId) return
    }
  })

/** The harness's system under test: the use cases over the ports of the context (see `servicesOf`). */
export const portsTarget: Effect.Effect<Target, never, Services> = Effect.map(
  Effect.context<Services>(),
  (context): Target => ({
    begin: Effect.map(Effect.provide(setUp, context), ({ settings, locations, principals }): Session => {
      const as =
        (name: ActorName) =>
        <A, E>(effect: Effect.Effect<A, E, Services | CurrentPrincipal>) =>
          answer(effect.pipe(Effect.provideService(CurrentPrincipal, principals[name]), Effect.provide(context)))
      const write = <A extends object, E>(
        name: ActorName,
        operation: string,
        key: string,
        payload: unknown,
        command: (
          services: Context.Context<Services>
        ) => Parameters<typeof runWrite<A, E, Services | CurrentPrincipal>>[1]
      ) =>
        as(name)(
          Effect.map(
            runWrite({ idempotencyKey: key, operation, payload }, command(context)),
            ({ result, replayed }) => ({
              ...result,
              ...(replayed || (result as { replayed?: boolean }).replayed ? { replayed: true } : {})
            })
          )
        )
      return {
        connectionOf: (name) => principals[name].connectionId,
        locationOf: (company) => locations[company],
        upsert: (name, resource, body, key) =>
          Result.match(decodeUpsert(resource as ResourceName, body), {
            onFailure: (error) => answer(Effect.fail(error)),
            onSuccess: (decoded) =>
              write(name, `POST /${resource}/upsert`, key, body, (ctx) =>
                Context.get(ctx, CatalogService).upsertCommand(resource as ResourceName, decoded)
              )
          }),
        archive: (name, id, expectedRevision, key) =>
          write(name, `DELETE /products/${id}`, key, { expected_revision: expectedRevision }, (ctx) =>
            Context.get(ctx, CatalogService).archiveCommand(id as RecordId, expectedRevision)
          ),
        stock: (name, body, key) =>
          Result.match(decodeStrict(StockWrite, body, "the stock write"), {
            onFailure: (error) => answer(Effect.fail(error)),
            onSuccess: (decoded) =>
              write(name, "POST /inventory", key, body, (ctx) =>
                Context.get(ctx, InventoryService).writeCommand(decoded)
              )
          }),
        reserve: (company, cardId, reserved) =>
          answer(
            Effect.flatMap(InventoryAdmin, (admin) =>
              admin.reserve(settings[company].id, cardId, locations[company], { reserved })
            ).pipe(Effect.provide(context))
          ),
        importRecords: (name, body, key) =>
          Result.match(decodeStrict(ImportBody, body, "the import"), {
            onFailure: (error) => answer(Effect.fail(error)),
            onSuccess: (decoded) =>
              as(name)(
                Effect.gen(function* () {
                  const imports = yield* ImportService
                  const { result } = yield* runWrite(
                    { idempotencyKey: key, operation: "POST /imports", payload: body },
                    imports.submitCommand(decoded)
                  )
                  if (result._tag === "DryRun") return { job: null, report: result.report }
                  yield* work(result.job.id)
                  return yield* Effect.flatMap(JobService, (jobs) => jobs.get(result.job.id))
                })
              )
          }),
        feed: (name, cursor, limit) => as(name)(Effect.flatMap(ChangeFeed, (feed) => feed.read({ cursor, limit }))),
        list: (name, resource, externalId) =>
          as(name)(
            Effect.flatMap(CatalogService, (catalog) =>
              catalog.list(resource as ResourceName, { limit: 100, externalId })
            ).pipe(Effect.map((page) => page.records))
          ),
        get: (name, resource, id) =>
          as(name)(Effect.flatMap(CatalogService, (catalog) => catalog.get(resource as ResourceName, id as RecordId))),
        inventory: (name) =>
          as(name)(
            Effect.flatMap(InventoryService, (inventory) => inventory.list({ limit: 100 })).pipe(
              Effect.map((page) => page.records)
            )
          )
      }
    })
  })
)
