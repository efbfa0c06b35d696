/**
 * The checks every panel use case starts with: the caller runs the company (or is an administrator), the
 * connection is the company's, the caller may manage people, and a change is not made in a disabled
 * company by its owners or managers. Each fails as the page shows it: `PanelForbidden` ("not found") or
 * `PanelChangeRefused` (with the reason).
 */
import { Effect, Option } from "effect"
import type { Accounts } from "../../Auth/Accounts.js"
import type { Company } from "../../Auth/Company.js"
import { Actor } from "../../Audit/AuditLog.js"
import {
  isAdmin,
  managesPeople,
  type PanelCaller,
  PanelChangeRefused,
  PanelForbidden,
  runsCompany
} from "../../Panel/PanelAccess.js"

/** "Not found" for the caller: `what` does not exist for them. */
export const forbidden = (what: string) => new PanelForbidden({ message: `no ${what} here` })

/** Runs `effect` as the caller: Admin's and PeopleAdmin's audit entries name them and their address. */
export const as =
  (caller: PanelCaller) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provideService(effect, Actor, {
      label: caller.user.email,
      userId: caller.user.id,
      address: caller.address
    })

/** The guards over the accounts store. */
export const makeGuards = (accounts: Accounts["Service"]) => {
  const requireAdmin = (caller: PanelCaller) =>
    isAdmin(caller.user) ? Effect.void : Effect.fail(forbidden("such page"))

  /** The company, when the caller runs it; otherwise (or when there is none) PanelForbidden. */
  const company = (caller: PanelCaller, companyId: string) =>
    runsCompany(caller.user, companyId)
      ? Effect.flatMap(accounts.getCompany(companyId), (found) =>
          Option.match(found, { onNone: () => Effect.fail(forbidden("company")), onSome: Effect.succeed })
        )
      : Effect.fail(forbidden("company"))

  /** Refuses an owner's or manager's change in a disabled company; administrators change it (and enable it). */
  const unlessDisabled = (caller: PanelCaller, found: Company) =>
    found.enabled || isAdmin(caller.user)
      ? Effect.succeed(found)
      : Effect.fail(
          new PanelChangeRefused({
            reason: "company_disabled",
            message:
              "this company is disabled, so nothing in it can be changed; its platform administrator can enable it again"
          })
        )

  /** The company, when the caller runs it and may change it now. */
  const changeableCompany = (caller: PanelCaller, companyId: string) =>
    Effect.flatMap(company(caller, companyId), (found) => unlessDisabled(caller, found))

  /** The connection, when it belongs to a company the caller runs. */
  const connection = (caller: PanelCaller, companyId: string, connectionId: string) =>
    Effect.gen(function* () {
      const owner = yield* company(caller, companyId)
      const found = yield* accounts.getConnection(connectionId)
      if (Option.isNone(found) || found.value.company_id !== owner.id) return yield* forbidden("connection")
      return { company: owner, connection: found.value }
    })

  /** The connection, when the caller runs its company and may change it now. */
  const changeableConnection = (caller: PanelCaller, companyId: string, connectionId: string) =>
    Effect.tap(connection(caller, companyId, connectionId), (found) => unlessDisabled(caller, found.company))

  /** The company, when the caller manages its people. */
  const requirePeople = (caller: PanelCaller, companyId: string) =>
    Effect.andThen(company(caller, companyId), (found) =>
      managesPeople(caller.user, companyId) ? Effect.succeed(found) : Effect.fail(forbidden("such page"))
    )

  return {
    requireAdmin,
    company,
    changeableCompany,
    connection,
    changeableConnection,
    requirePeople,
    unlessDisabled
  } as const
}

/** What `makeGuards` returns. */
export type Guards = ReturnType<typeof makeGuards>
