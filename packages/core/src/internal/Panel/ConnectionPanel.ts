/**
 * A connection's page in the panel and its forms: keys (created once per form, revoked), location access,
 * jobs with their reports, the feed's head and the rate-limit use of this minute.
 */
import { Clock, Context, Effect } from "effect"
import type { Accounts } from "../../Auth/Accounts.js"
import type { ApiKey } from "../../Auth/ApiKey.js"
import type { Admin } from "../../Admin/AccountsAdmin.js"
import type { JobAdmin } from "../../Admin/JobAdmin.js"
import type { ChangeLog } from "../../Changes/ChangeLog.js"
import { runIdempotentIn } from "../../Idempotency/Idempotency.js"
import { IdempotencyStore } from "../../Idempotency/IdempotencyStore.js"
import {
  companyBucket,
  keyBucket,
  perCompanyPerMinute,
  perKeyPerMinute,
  type RateLimiter,
  rateWindowMillis
} from "../../RateLimit/RateLimiter.js"
import { ValidationFailed } from "../../Shared/Errors.js"
import type { ConnectionId } from "../../Shared/Ids.js"
import { Transactor } from "../../Shared/Transactor.js"
import type { PanelCaller } from "../../Panel/PanelAccess.js"
import { as, forbidden, type Guards } from "./PanelGuards.js"

/** The most jobs a connection's page lists (newest last, as the job list orders them). */
export const jobsShown = 200

/** A key form's one-time token: 16-64 URL-safe characters, made when the form is shown. */
export const keyFormNonce = /^[A-Za-z0-9_-]{16,64}$/

/**
 * What a key form's post did: created the key (its secret, shown this once), or found that this form
 * (its nonce) had created one already, whose secret is gone.
 */
export type KeyCreation =
  | {
      readonly _tag: "Created"
      readonly key: ApiKey
      readonly token: string
    }
  | { readonly _tag: "AlreadyCreated"; readonly keyId: string }

/** A new key's fields under a connection: its name, scopes (only the company's grants) and lifetime. */
export interface KeyFields {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly lifetime_days: unknown
}

/** What the connection use cases work with. */
export interface ConnectionPanelDependencies {
  readonly guards: Guards
  readonly admin: Admin["Service"]
  readonly jobs: JobAdmin["Service"]
  readonly accounts: Accounts["Service"]
  readonly changes: ChangeLog["Service"]
  readonly limiter: RateLimiter["Service"]
  readonly idempotency: IdempotencyStore["Service"]
  readonly transactor: Transactor["Service"]
}

/** The connection use cases. A key can always be revoked; the other changes are refused in a disabled company. */
export const makeConnectionPanel = ({
  accounts,
  admin,
  changes,
  guards,
  idempotency: store,
  jobs,
  limiter,
  transactor
}: ConnectionPanelDependencies) => {
  // A key form's post runs under its nonce, as an API write under its Idempotency-Key.
  const idempotency = Context.make(IdempotencyStore, store).pipe(Context.add(Transactor, transactor))

  /** The current minute's requests of each key not revoked (by id), and of the company's keys together. */
  const rateUse = (companyId: string, keys: ReadonlyArray<ApiKey>) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const byKey = yield* Effect.forEach(
        keys.filter((key) => key.revoked_at === null),
        (key) =>
          Effect.map(
            limiter.usage(keyBucket(key.id), perKeyPerMinute, rateWindowMillis, now),
            (use) => [key.id, use] as const
          )
      )
      return {
        company: yield* limiter.usage(companyBucket(companyId), perCompanyPerMinute, rateWindowMillis, now),
        keys: new Map(byKey)
      }
    })

  /** Everything a connection's page shows: keys, locations, jobs, failed media, feed head, rate-limit use. */
  const connectionPage = (caller: PanelCaller, companyId: string, connectionId: string) =>
    Effect.gen(function* () {
      const found = yield* guards.connection(caller, companyId, connectionId)
      const ownedBy = <T extends { readonly connection_id: string }>(rows: ReadonlyArray<T>) =>
        rows.filter((row) => row.connection_id === connectionId)
      const companyJobs = yield* jobs.list({ companyId: found.company.id, limit: jobsShown })
      const failedMedia = yield* jobs.list({
        companyId: found.company.id,
        kind: "media",
        state: "failed",
        limit: jobsShown
      })
      const keys = ownedBy(yield* admin.listKeys(found.company.id))
      return {
        ...found,
        keys,
        locations: yield* admin.listLocations(found.company.id),
        assignments: yield* accounts.assignments(connectionId as ConnectionId),
        jobs: ownedBy(companyJobs),
        failedMedia: ownedBy(failedMedia),
        feedHead: yield* changes.head(found.company.id),
        rateUse: yield* rateUse(found.company.id, keys)
      }
    })
  /**
   * Creates a key once per form: `nonce` is the form's one-time token, and a second post of the same form
   * (a reload of the page that showed the secret) finds the key it made instead of making another.
   */
  const createKey = (caller: PanelCaller, companyId: string, connectionId: string, fields: KeyFields, nonce: string) =>
    Effect.gen(function* () {
      const found = yield* guards.changeableConnection(caller, companyId, connectionId)
      if (!keyFormNonce.test(nonce))
        return yield* new ValidationFailed({
          message: "the form is incomplete",
          issues: [{ path: "$", message: "this form is incomplete: open the connection's page again" }]
        })
      let created: { readonly key: ApiKey; readonly token: string } | undefined
      const write = Effect.map(as(caller)(admin.createKey({ ...fields, connection_id: connectionId })), (made) => {
        created = made
        return { status: 201, body: { key_id: made.key.id } }
      })
      const outcome = yield* runIdempotentIn(
        { companyId: found.company.id, connectionId: found.connection.id },
        `panel-key:${nonce}`,
        "panel:key.create",
        write
      ).pipe(
        Effect.provide(idempotency),
        Effect.catchTag("IdempotencyConflict", () =>
          Effect.fail(
            new ValidationFailed({
              message: "the form was sent twice at once",
              issues: [{ path: "$", message: "this form is being sent already: open the connection's page again" }]
            })
          )
        )
      )
      const body = outcome.response.body as { readonly key_id?: unknown }
      const creation: KeyCreation =
        !outcome.replayed && created !== undefined
          ? { _tag: "Created", ...created }
          : { _tag: "AlreadyCreated", keyId: String(body.key_id) }
      return creation
    })
  const revokeKey = (caller: PanelCaller, companyId: string, connectionId: string, keyId: string) =>
    Effect.gen(function* () {
      const found = yield* guards.connection(caller, companyId, connectionId)
      const keys = yield* admin.listKeys(found.company.id)
      if (!keys.some((key) => key.id === keyId && key.connection_id === connectionId)) return yield* forbidden("key")
      yield* as(caller)(admin.revokeKey(keyId))
    })
  /** Lets the connection read a location's stock, and write it when `writable`. */
  const assignLocation = (
    caller: PanelCaller,
    companyId: string,
    connectionId: string,
    locationId: string,
    writable: boolean
  ) =>
    Effect.gen(function* () {
      yield* guards.changeableConnection(caller, companyId, connectionId)
      const locations = yield* admin.listLocations(companyId)
      if (!locations.some((location) => location.id === locationId)) return yield* forbidden("location")
      return yield* as(caller)(admin.assignLocation(connectionId, locationId, writable))
    })
  /** Ends the connection's access to one of its company's locations. */
  const unassignLocation = (caller: PanelCaller, companyId: string, connectionId: string, locationId: string) =>
    Effect.gen(function* () {
      yield* guards.changeableConnection(caller, companyId, connectionId)
      const assigned = yield* accounts.assignments(connectionId as ConnectionId)
      if (!assigned.some((a) => a.location_id === locationId)) return yield* forbidden("location")
      return yield* as(caller)(admin.unassignLocation(connectionId, locationId))
    })
  /** One job of the connection, with an import's report. */
  const job = (caller: PanelCaller, companyId: string, connectionId: string, jobId: string) =>
    Effect.gen(function* () {
      const found = yield* guards.connection(caller, companyId, connectionId)
      const detail = yield* jobs
        .show(jobId)
        .pipe(Effect.catchTag("RecordNotFound", () => Effect.fail(forbidden("job"))))
      if (detail.company_id !== found.company.id || detail.connection_id !== connectionId)
        return yield* forbidden("job")
      return { ...found, job: detail }
    })

  return { connectionPage, createKey, revokeKey, assignLocation, unassignLocation, job } as const
}
