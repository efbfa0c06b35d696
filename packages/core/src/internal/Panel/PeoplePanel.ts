/**
 * A company's people in the panel: listed and added by administrators and the company's owners, disabled
 * and enabled again, so that a company always keeps an owner who can sign in.
 */
import { Effect } from "effect"
import { AccountConflict } from "../../Auth/Accounts.js"
import type { PeopleAdmin } from "../../People/PeopleAdmin.js"
import { normalEmail, type PanelRole } from "../../People/PanelUser.js"
import type { CompanyId } from "../../Shared/Ids.js"
import { isAdmin, type PanelCaller, PanelChangeRefused, rolesGrantable } from "../../Panel/PanelAccess.js"
import { as, forbidden, type Guards } from "./PanelGuards.js"

/** The fields of a new person, as the panel's form sends them. */
export interface PersonInput {
  readonly email: string
  readonly name: string
  readonly password: string
  readonly role: string
}

/** The people use cases over the guards and `PeopleAdmin`. */
export const makePeoplePanel = (guards: Guards, people: PeopleAdmin["Service"]) => {
  const listPeople = (caller: PanelCaller, companyId: string) =>
    Effect.andThen(guards.requirePeople(caller, companyId), people.listUsers(companyId as CompanyId))

  /**
   * Adds a person. An email taken by someone the caller cannot see (another company's person, an
   * administrator) is refused without saying that it belongs to someone.
   */
  const createPerson = (caller: PanelCaller, companyId: string, input: PersonInput) =>
    Effect.gen(function* () {
      const found = yield* guards.requirePeople(caller, companyId)
      yield* guards.unlessDisabled(caller, found)
      if (!rolesGrantable(caller.user, companyId).includes(input.role as PanelRole))
        return yield* forbidden("such role")
      return yield* as(caller)(
        people.createUser({ ...input, role: input.role as PanelRole, company_id: companyId })
      ).pipe(
        Effect.catchTag("AccountConflict", (conflict) =>
          Effect.gen(function* () {
            if (isAdmin(caller.user)) return yield* conflict
            const email = normalEmail(input.email)
            const members = yield* people.listUsers(companyId as CompanyId)
            if (members.some((member) => member.email === email)) return yield* conflict
            return yield* new AccountConflict({ field: "email", message: "this email cannot be used; choose another" })
          })
        )
      )
    })

  /**
   * Disables or enables a person of the company. No one disables themselves, and the company's last
   * enabled owner stays enabled (add or enable another owner first).
   */
  const setPersonEnabled = (caller: PanelCaller, companyId: string, userId: string, enabled: boolean) =>
    Effect.gen(function* () {
      const members = yield* listPeople(caller, companyId)
      const target = members.find((member) => member.id === userId)
      if (target === undefined) return yield* forbidden("person")
      yield* guards.changeableCompany(caller, companyId)
      if (!enabled && target.id === caller.user.id)
        return yield* new PanelChangeRefused({
          reason: "own_account",
          message: "you cannot disable yourself; another owner or an administrator can"
        })
      // The last enabled owner is kept by the write itself, not by the list read above: two owners
      // disabling each other at once would both pass a check made here.
      return yield* as(caller)(people.setUserEnabled(userId, enabled, { keepAnOwner: true })).pipe(
        Effect.catchTag("LastEnabledOwner", ({ message }) =>
          Effect.fail(new PanelChangeRefused({ reason: "last_owner", message }))
        )
      )
    })

  return { listPeople, createPerson, setPersonEnabled } as const
}
