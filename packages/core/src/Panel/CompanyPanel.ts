/**
 * The company panel's use cases: every page and form of the panel as one call taking the signed-in
 * user. Each checks the user's role and company (`PanelAccess`), then calls the admin services with the
 * user as the `Actor`, so the audit log records who did it and from where. An embedder's back office can
 * call them as the panel does.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import type { ApiKey } from "../Auth/ApiKey.js"
import type { Company } from "../Auth/Company.js"
import { Admin } from "../Admin/AccountsAdmin.js"
import { JobAdmin } from "../Admin/JobAdmin.js"
import { Actor, AuditLog } from "../Audit/AuditLog.js"
import { ChangeLog } from "../Changes/ChangeLog.js"
import { runIdempotentIn } from "../Idempotency/Idempotency.js"
import { IdempotencyStore } from "../Idempotency/IdempotencyStore.js"
import { PeopleAdmin } from "../People/PeopleAdmin.js"
import type { PanelRole } from "../People/PanelUser.js"
import {
  companyBucket,
  keyBucket,
  perCompanyPerMinute,
  perKeyPerMinute,
  RateLimiter,
  rateWindowMillis
} from "../RateLimit/RateLimiter.js"
import { ValidationFailed } from "../Shared/Errors.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"
import type { Scope } from "../Shared/Scope.js"
import { Transactor } from "../Shared/Transactor.js"
import {
  isAdmin,
  managesPeople,
  type PanelCaller,
  PanelForbidden,
  readsAudit,
  rolesGrantable,
  runsCompany
} from "./PanelAccess.js"

/** The most jobs a connection's page lists (newest last, as the job list orders them). */
export const jobsShown = 200
/** The most audit entries a page of the log shows. */
export const auditPageSize = 100

const forbidden = (what: string) => new PanelForbidden({ message: `no ${what} here` })

/** The fields of a new person, as the panel's form sends them. */
export interface PersonInput {
  readonly email: string
  readonly name: string
  readonly password: string
  readonly role: string
}

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

/**
 * The panel's use cases, each taking the signed-in `PanelCaller`; a page of another company, or one the
 * caller's role may not open, fails with `PanelForbidden` (shown as "not found").
 */
export class CompanyPanel extends Context.Service<CompanyPanel>()("@catalog-sync/core/CompanyPanel", {
  make: Effect.gen(function* () {
    const admin = yield* Admin
    const people = yield* PeopleAdmin
    const jobs = yield* JobAdmin
    const audit = yield* AuditLog
    const accounts = yield* Accounts
    const changes = yield* ChangeLog
    const limiter = yield* RateLimiter
    // A key form's post runs under its nonce, as an API write under its Idempotency-Key.
    const idempotency = Context.make(IdempotencyStore, yield* IdempotencyStore).pipe(
      Context.add(Transactor, yield* Transactor)
    )

    /** Runs `effect` as the caller: Admin's and PeopleAdmin's audit entries name them and their address. */
    const as =
      (caller: PanelCaller) =>
      <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.provideService(effect, Actor, {
          label: caller.user.email,
          userId: caller.user.id,
          address: caller.address
        })

    const requireAdmin = (caller: PanelCaller) =>
      isAdmin(caller.user) ? Effect.void : Effect.fail(forbidden("such page"))

    /** The company, when the caller runs it; otherwise (or when there is none) PanelForbidden. */
    const company = (caller: PanelCaller, companyId: string) =>
      runsCompany(caller.user, companyId)
        ? Effect.flatMap(accounts.getCompany(companyId), (found) =>
            Option.match(found, { onNone: () => Effect.fail(forbidden("company")), onSome: Effect.succeed })
          )
        : Effect.fail(forbidden("company"))

    /** The connection, when it belongs to a company the caller runs. */
    const connection = (caller: PanelCaller, companyId: string, connectionId: string) =>
      Effect.gen(function* () {
        const owner = yield* company(caller, companyId)
        const found = yield* accounts.getConnection(connectionId)
        if (Option.isNone(found) || found.value.company_id !== owner.id) return yield* forbidden("connection")
        return { company: owner, connection: found.value }
      })

    const requirePeople = (caller: PanelCaller, companyId: string) =>
      Effect.andThen(company(caller, companyId), (found) =>
        managesPeople(caller.user, companyId) ? Effect.succeed(found) : Effect.fail(forbidden("such page"))
      )

    // Administrators: companies, their settings and grants.
    const companies = (caller: PanelCaller) => Effect.andThen(requireAdmin(caller), admin.listCompanies)
    const createCompany = (caller: PanelCaller, input: unknown) =>
      Effect.andThen(requireAdmin(caller), as(caller)(admin.createCompany(input)))
    const updateCompany = (caller: PanelCaller, companyId: string, patch: unknown) =>
      Effect.andThen(requireAdmin(caller), as(caller)(admin.updateCompany(companyId, patch)))
    /** Grants exactly `scopes`: grants the missing ones and revokes the others (an entry in the log each). */
    const setScopes = (caller: PanelCaller, companyId: string, scopes: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* requireAdmin(caller)
        const current: Company = yield* admin.getCompany(companyId)
        const added = scopes.filter((scope) => !current.granted_scopes.includes(scope as Scope))
        const removed = current.granted_scopes.filter((scope) => !scopes.includes(scope))
        let updated = current
        if (added.length > 0) updated = yield* as(caller)(admin.grantScopes(companyId, added))
        if (removed.length > 0) updated = yield* as(caller)(admin.revokeScopes(companyId, removed))
        return updated
      })

    // A company's people.
    const listPeople = (caller: PanelCaller, companyId: string) =>
      Effect.andThen(requirePeople(caller, companyId), people.listUsers(companyId as CompanyId))
    const createPerson = (caller: PanelCaller, companyId: string, input: PersonInput) =>
      Effect.gen(function* () {
        yield* requirePeople(caller, companyId)
        if (!rolesGrantable(caller.user, companyId).includes(input.role as PanelRole))
          return yield* forbidden("such role")
        return yield* as(caller)(people.createUser({ ...input, role: input.role as PanelRole, company_id: companyId }))
      })
    const setPersonEnabled = (caller: PanelCaller, companyId: string, userId: string, enabled: boolean) =>
      Effect.gen(function* () {
        const members = yield* listPeople(caller, companyId)
        if (!members.some((member) => member.id === userId)) return yield* forbidden("person")
        return yield* as(caller)(people.setUserEnabled(userId, enabled))
      })

    // A company's connections, keys and locations (owners and managers).
    const overview = (caller: PanelCaller, companyId: string) =>
      Effect.gen(function* () {
        const found = yield* company(caller, companyId)
        return {
          company: found,
          connections: yield* admin.listConnections(found.id),
          locations: yield* admin.listLocations(found.id),
          managesPeople: managesPeople(caller.user, found.id),
          readsAudit: readsAudit(caller.user, found.id)
        }
      })
    const createConnection = (caller: PanelCaller, companyId: string, name: string) =>
      Effect.andThen(company(caller, companyId), (found) => as(caller)(admin.createConnection(found.id, name)))
    const renameConnection = (caller: PanelCaller, companyId: string, connectionId: string, name: string) =>
      Effect.andThen(connection(caller, companyId, connectionId), () =>
        as(caller)(admin.renameConnection(connectionId, name))
      )
    const setConnectionEnabled = (caller: PanelCaller, companyId: string, connectionId: string, enabled: boolean) =>
      Effect.andThen(connection(caller, companyId, connectionId), () =>
        as(caller)(admin.setConnectionEnabled(connectionId, enabled))
      )
    const createLocation = (caller: PanelCaller, companyId: string, name: string) =>
      Effect.andThen(company(caller, companyId), (found) => as(caller)(admin.createLocation(found.id, name)))

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
        const found = yield* connection(caller, companyId, connectionId)
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
    const createKey = (
      caller: PanelCaller,
      companyId: string,
      connectionId: string,
      fields: KeyFields,
      nonce: string
    ) =>
      Effect.gen(function* () {
        const found = yield* connection(caller, companyId, connectionId)
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
        const found = yield* connection(caller, companyId, connectionId)
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
        yield* connection(caller, companyId, connectionId)
        const locations = yield* admin.listLocations(companyId)
        if (!locations.some((location) => location.id === locationId)) return yield* forbidden("location")
        return yield* as(caller)(admin.assignLocation(connectionId, locationId, writable))
      })
    /** Ends the connection's access to one of its company's locations. */
    const unassignLocation = (caller: PanelCaller, companyId: string, connectionId: string, locationId: string) =>
      Effect.gen(function* () {
        yield* connection(caller, companyId, connectionId)
        const assigned = yield* accounts.assignments(connectionId as ConnectionId)
        if (!assigned.some((a) => a.location_id === locationId)) return yield* forbidden("location")
        return yield* as(caller)(admin.unassignLocation(connectionId, locationId))
      })
    /** One job of the connection, with an import's report. */
    const job = (caller: PanelCaller, companyId: string, connectionId: string, jobId: string) =>
      Effect.gen(function* () {
        const found = yield* connection(caller, companyId, connectionId)
        const detail = yield* jobs
          .show(jobId)
          .pipe(Effect.catchTag("RecordNotFound", () => Effect.fail(forbidden("job"))))
        if (detail.company_id !== found.company.id || detail.connection_id !== connectionId)
          return yield* forbidden("job")
        return { ...found, job: detail }
      })

    /** The audit log: an administrator's of every company (or one), an owner's of their company. */
    const auditLog = (caller: PanelCaller, companyId: string | null, before?: string) =>
      Effect.gen(function* () {
        if (!readsAudit(caller.user, companyId)) return yield* forbidden("audit log")
        if (companyId !== null) yield* company(caller, companyId)
        return yield* audit.list({
          ...(companyId === null ? {} : { companyId: companyId as CompanyId }),
          limit: auditPageSize,
          ...(before === undefined ? {} : { before })
        })
      })

    return {
      companies,
      createCompany,
      updateCompany,
      setScopes,
      company,
      overview,
      listPeople,
      createPerson,
      setPersonEnabled,
      createConnection,
      renameConnection,
      setConnectionEnabled,
      createLocation,
      connectionPage,
      createKey,
      revokeKey,
      assignLocation,
      unassignLocation,
      job,
      auditLog,
      signIn: people.signIn,
      authenticate: people.authenticate,
      signOut: people.signOut,
      signOutEverywhere: (caller: PanelCaller) => as(caller)(people.signOutEverywhere(caller.user.id))
    } as const
  })
}) {
  /** The service over the admin services and ports (the composition root provides them). */
  static readonly Default = Layer.effect(this, this.make)
}
