/**
 * The company panel's use cases: every page and form of the panel as one call taking the signed-in
 * user. Each checks the user's role and company (`PanelAccess`, `PanelGuards`), then calls the admin
 * services with the user as the `Actor`, so the audit log records who did it and from where. An
 * embedder's back office can call them as the panel does. People are in `PeoplePanel`, a connection's
 * page and forms in `ConnectionPanel`.
 */
import { Context, Effect, Layer } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import type { Company } from "../Auth/Company.js"
import { Admin } from "../Admin/AccountsAdmin.js"
import { JobAdmin } from "../Admin/JobAdmin.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { ChangeLog } from "../Changes/ChangeLog.js"
import { IdempotencyStore } from "../Idempotency/IdempotencyStore.js"
import { PeopleAdmin } from "../People/PeopleAdmin.js"
import { RateLimiter } from "../RateLimit/RateLimiter.js"
import type { CompanyId } from "../Shared/Ids.js"
import type { Scope } from "../Shared/Scope.js"
import { Transactor } from "../Shared/Transactor.js"
import { makeConnectionPanel } from "../internal/Panel/ConnectionPanel.js"
import { managesPeople, type PanelCaller, readsAudit } from "./PanelAccess.js"
import { as, forbidden, makeGuards } from "../internal/Panel/PanelGuards.js"
import { makePeoplePanel } from "../internal/Panel/PeoplePanel.js"

export { jobsShown, type KeyCreation, type KeyFields, keyFormNonce } from "../internal/Panel/ConnectionPanel.js"
export type { PersonInput } from "../internal/Panel/PeoplePanel.js"

/** The most audit entries a page of the log shows. */
export const auditPageSize = 100

/**
 * The panel's use cases, each taking the signed-in `PanelCaller`; a page of another company, or one the
 * caller's role may not open, fails with `PanelForbidden` (shown as "not found"), and a change the caller
 * may not make now with `PanelChangeRefused` (shown with its reason).
 */
export class CompanyPanel extends Context.Service<CompanyPanel>()("@catalog-sync/core/CompanyPanel", {
  make: Effect.gen(function* () {
    const admin = yield* Admin
    const people = yield* PeopleAdmin
    const audit = yield* AuditLog
    const accounts = yield* Accounts
    const guards = makeGuards(accounts)
    const peoplePanel = makePeoplePanel(guards, people)
    const connectionPanel = makeConnectionPanel({
      guards,
      admin,
      accounts,
      jobs: yield* JobAdmin,
      changes: yield* ChangeLog,
      limiter: yield* RateLimiter,
      idempotency: yield* IdempotencyStore,
      transactor: yield* Transactor
    })
    const { requireAdmin } = guards

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

    // A company's connections and locations (owners and managers; changes refused while it is disabled).
    const overview = (caller: PanelCaller, companyId: string) =>
      Effect.gen(function* () {
        const found = yield* guards.company(caller, companyId)
        return {
          company: found,
          connections: yield* admin.listConnections(found.id),
          locations: yield* admin.listLocations(found.id),
          managesPeople: managesPeople(caller.user, found.id),
          readsAudit: readsAudit(caller.user, found.id)
        }
      })
    const createConnection = (caller: PanelCaller, companyId: string, name: string) =>
      Effect.andThen(guards.changeableCompany(caller, companyId), (found) =>
        as(caller)(admin.createConnection(found.id, name))
      )
    const renameConnection = (caller: PanelCaller, companyId: string, connectionId: string, name: string) =>
      Effect.andThen(guards.changeableConnection(caller, companyId, connectionId), () =>
        as(caller)(admin.renameConnection(connectionId, name))
      )
    const setConnectionEnabled = (caller: PanelCaller, companyId: string, connectionId: string, enabled: boolean) =>
      Effect.andThen(guards.changeableConnection(caller, companyId, connectionId), () =>
        as(caller)(admin.setConnectionEnabled(connectionId, enabled))
      )
    const createLocation = (caller: PanelCaller, companyId: string, name: string) =>
      Effect.andThen(guards.changeableCompany(caller, companyId), (found) =>
        as(caller)(admin.createLocation(found.id, name))
      )

    /** The audit log: an administrator's of every company (or one), an owner's of their company. */
    const auditLog = (caller: PanelCaller, companyId: string | null, before?: string) =>
      Effect.gen(function* () {
        if (!readsAudit(caller.user, companyId)) return yield* forbidden("audit log")
        if (companyId !== null) yield* guards.company(caller, companyId)
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
      company: guards.company,
      overview,
      ...peoplePanel,
      createConnection,
      renameConnection,
      setConnectionEnabled,
      createLocation,
      ...connectionPanel,
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
