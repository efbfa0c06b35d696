/**
 * Who may do what in the company panel: a platform administrator anything, an owner or manager only in
 * their own company, and a manager nothing with people. Plain rules; `CompanyPanel` applies them.
 */
import { Schema } from "effect"
import type { PanelRole, PanelUser } from "../People/PanelUser.js"

/**
 * The signed-in user may not do this, or the thing named does not exist for them. Both read as "not
 * found": an owner editing ids in a URL learns nothing about another company's.
 */
export class PanelForbidden extends Schema.TaggedError<PanelForbidden>()("PanelForbidden", {
  message: Schema.String
}) {
  get code(): "not_found" {
    return "not_found"
  }
}

/** Why the panel refuses a change the caller may otherwise make. */
export type ChangeRefusal = "company_disabled" | "own_account" | "last_owner"

/**
 * A change the caller may not make now, for a reason the page shows them: their company is disabled
 * (only an administrator changes it, or enables it again), they would disable themselves, or the company
 * would be left without an enabled owner.
 */
export class PanelChangeRefused extends Schema.TaggedError<PanelChangeRefused>()("PanelChangeRefused", {
  reason: Schema.Literals(["company_disabled", "own_account", "last_owner"]),
  message: Schema.String
}) {
  get code(): "change_refused" {
    return "change_refused"
  }
}

/** Who is acting in the panel: the signed-in user and the address the request came from. */
export interface PanelCaller {
  readonly user: PanelUser
  readonly address: string | null
}

/** Whether the user is a platform administrator (every company is theirs to run). */
export const isAdmin = (user: PanelUser): boolean => user.role === "admin"

/** Whether the user may see and run the company's connections, keys and locations. */
export const runsCompany = (user: PanelUser, companyId: string): boolean =>
  isAdmin(user) || (user.enabled && user.company_id === companyId)

/** Whether the user may list and add the company's people (administrators and the company's owners). */
export const managesPeople = (user: PanelUser, companyId: string): boolean =>
  isAdmin(user) || (user.role === "owner" && runsCompany(user, companyId))

/** Whether the user may read the audit log of `companyId`, or with `null` the whole platform's. */
export const readsAudit = (user: PanelUser, companyId: string | null): boolean =>
  isAdmin(user) || (companyId !== null && user.role === "owner" && runsCompany(user, companyId))

/** The roles of the people a user may add to a company. */
export const rolesGrantable = (user: PanelUser, companyId: string): ReadonlyArray<PanelRole> =>
  managesPeople(user, companyId) ? ["owner", "manager"] : []

/** The company a non-administrator's pages are about; administrators choose one from the list. */
export const homeCompany = (user: PanelUser): string | null => (isAdmin(user) ? null : user.company_id)
