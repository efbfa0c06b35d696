/**
 * Catalogs imported in shuffled batches: a generated catalog, cut into import bodies and shuffled (a child
 * category before its parent, a bundle before its components), is imported batch by batch through the
 * import jobs; every record must apply, and the catalog the connection ends with must be the one the same
 * plan gives written record by record in its order (compared through each connection's external ids).
 */
import { Clock, Effect } from "effect"
import * as fc from "fast-check"
import { Accounts } from "../Auth/Accounts.js"
import { CurrentPrincipal, type Principal } from "../Auth/Principal.js"
import { CatalogService } from "../Catalog/CatalogService.js"
import type { JsonObject } from "../internal/json.js"
import { ImportService } from "../Imports/ImportService.js"
import { JobService } from "../Jobs/JobService.js"
import { type ResourceName, resourceNames } from "../Resources/Resource.js"
import { catalog, importBatches, materialize, type PlannedRecord, inApplyOrder } from "./arbitraries/Catalogs.js"
import { companySettings, fullPrincipal } from "./arbitraries/Settings.js"
import { type Services, work } from "./PortsTarget.js"
import { assertProperty, pause, type ReplayOptions, runs, seedOf } from "./Replay.js"
import { enabledCompany, write } from "./World.js"

export interface ImportPropertyOptions extends ReplayOptions {
  /** Catalogs imported (default 10). */
  readonly runs?: number | undefined
}

/** Registers the principal's company, connection and key, as an import job checks them before it writes. */
const register = (principal: Principal) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* accounts.saveCompany(enabledCompany(principal.company, "Kit", at))
    yield* accounts.saveConnection({
      id: principal.connectionId,
      company_id: principal.company.id,
      name: "Kit",
      enabled: true,
      created_at: at
    })
    yield* accounts.insertKey(
      {
        id: principal.keyId,
        company_id: principal.company.id,
        connection_id: principal.connectionId,
        name: "Kit",
        scopes: Array.from(principal.scopes),
        created_at: at,
        expires_at: "2999-01-01T00:00:00.000Z",
        revoked_at: null
      },
      "kit-unused-hash"
    )
  })

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * The catalog as a connection sees it, every uuid replaced by the external id the connection maps it as:
 * what two connections that wrote the same plan must both hold. Records the connection does not map are
 * left out; ids, times and the ids of selection fields are not compared.
 */
const snapshot = Effect.gen(function* () {
  const catalogService = yield* CatalogService
  const records: Array<{ readonly resource: ResourceName; readonly record: JsonObject }> = []
  for (const resource of resourceNames) {
    let cursor: string | undefined
    for (;;) {
      const page = yield* catalogService.list(resource, { limit: 100, cursor: cursor as never })
      for (const record of page.records) records.push({ resource, record: record })
      if (page.next_cursor === null) break
      cursor = page.next_cursor
    }
  }
  const externalIds = new Map(records.map(({ record }) => [record.id as string, record.external_id as string | null]))
  const named = (value: unknown, key: string): unknown => {
    if (typeof value === "string" && uuidPattern.test(value))
      return `→${externalIds.get(value) ?? "another connection's record"}`
    if (Array.isArray(value)) return value.map((item) => named(item, key))
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !["id", "created_at", "updated_at"].includes(k))
          .map(([k, v]) => [k, named(v, k)])
      )
    return value
  }
  return records
    .filter(({ record }) => record.external_id !== null)
    .map(({ resource, record }) => ({ resource, ...(named(record, "") as object) }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
})

/** Imports `batches` one after another as `principal`; fails unless every record of every batch is created. */
const importAll = (principal: Principal, batches: ReadonlyArray<ReadonlyArray<PlannedRecord>>) =>
  Effect.gen(function* () {
    const imports = yield* ImportService
    const jobs = yield* JobService
    const ids = new Map<string, string>()
    for (const batch of batches) {
      const body = {
        records: batch.map((record) => ({
          resource: record.resource,
          body: materialize(record.body, (resource, externalId) => ids.get(`${resource}|${externalId}`))
        }))
      }
      const submitted = yield* imports.submit(body)
      if (submitted._tag !== "Queued") return yield* Effect.die(new Error("an import without dry_run was not queued"))
      yield* work(submitted.job.id)
      const { job, report } = yield* jobs.get(submitted.job.id)
      const refused = report?.records.filter((r) => r.status !== "applied" || r.outcome !== "created") ?? []
      if (job.state !== "completed" || refused.length > 0)
        return yield* Effect.die(
          new Error(
            `the import of ${JSON.stringify(body.records.map((r) => `${r.resource} ${String(r.body.external_id)}`))} ended ${job.state}: ${JSON.stringify(refused.slice(0, 3))}`
          )
        )
      report!.records.forEach((result, i) => ids.set(`${batch[i]!.resource}|${batch[i]!.externalId}`, result.id!))
    }
  }).pipe(Effect.provideService(CurrentPrincipal, principal))

/** Two new connections of a new company: one imports the plan in shuffled batches, the other writes it in order. */
const drawn = fc
  .record({ importer: fc.uuid(), writer: fc.uuid(), plan: companySettings.chain((settings) => catalog(settings)) })
  .chain(({ importer, writer, plan }) => importBatches(plan).map((batches) => ({ importer, writer, plan, batches })))

/**
 * Runs the property on the use cases of the context; fails with the options that replay a failure.
 * `outOfOrder` counts the runs with a batch whose records reference ones after them in apply order.
 */
export const checkImportBatches = (options: ImportPropertyOptions = {}) =>
  Effect.gen(function* () {
    const seed = seedOf(options)
    const context = yield* Effect.context<Services>()
    let outOfOrder = 0
    if (runs(options, "imports"))
      yield* assertProperty(
        "imports",
        fc.asyncProperty(drawn, async ({ importer, writer, plan, batches }) => {
          await pause()
          if (batches.some((batch) => !inApplyOrder(batch))) outOfOrder++
          const importing = fullPrincipal(plan.settings, importer)
          const result = await Effect.runPromiseWith(context)(
            Effect.gen(function* () {
              yield* register(importing)
              yield* importAll(importing, batches)
              yield* write(plan, writer)
              return {
                imported: yield* Effect.provideService(snapshot, CurrentPrincipal, importing),
                written: yield* Effect.provideService(snapshot, CurrentPrincipal, fullPrincipal(plan.settings, writer))
              }
            })
          )
          const [imported, written] = [JSON.stringify(result.imported), JSON.stringify(result.written)]
          if (imported !== written)
            throw new Error(`the imported catalog differs from the one written in order:\n${imported}\n${written}`)
        }),
        { ...options, seed, numRuns: options.runs ?? 10 }
      )
    return { seed, outOfOrder }
  })
