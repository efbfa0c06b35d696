/**
 * `catalog-sync user ...`: the panel's people (the first administrator is made here), and `catalog-sync
 * audit list`: who changed what. A password is never an argument: see Password.ts.
 */
import { AuditLog, type Ids, PeopleAdmin } from "@catalog-sync/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { UsageError } from "./Action.js"
import { command, group, optional } from "./Define.js"
import * as Input from "./Inputs.js"
import * as Password from "./Password.js"

const userId = Input.uuidArg("user-id", "the user's id (as user list shows it)")

const people = <A, E, R>(run: (service: PeopleAdmin.PeopleAdmin["Service"]) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(PeopleAdmin.PeopleAdmin, run)

const onOffFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withoutNegation, Flag.withDefault(false), Input.withHelp(name, description))

/** The role and company a `user create` line asks for, or the one line that says what is missing. */
const roleOf = (admin: boolean, company: Option.Option<string>, role: Option.Option<"owner" | "manager">) => {
  const refuse = (message: string) => Effect.fail(new UsageError({ command: "user create", message }))
  if (admin) {
    return Option.isSome(company) || Option.isSome(role)
      ? refuse("an administrator (--admin) has no --company and no --role")
      : Effect.succeed({ role: "admin" as const })
  }
  if (Option.isNone(company) || Option.isNone(role))
    return refuse("give --admin for a platform administrator, or --company and --role owner|manager")
  return Effect.succeed({ role: role.value, company_id: company.value })
}

export const user = group("user", "people who sign in to the panel", [
  "create",
  "list",
  "enable",
  "disable",
  "sign-out-everywhere",
  "unlock"
]).pipe(
  Command.withSubcommands([
    command(
      "create",
      "create a panel user: an administrator (--admin), or a company's owner or manager; the password is read from standard input (--password-stdin) or asked for",
      {
        admin: onOffFlag("admin", "a platform administrator, who runs every company"),
        company: optional(Input.uuid("company", "the company of an owner or manager")),
        role: optional(
          Input.choice("role", ["owner", "manager"] as const).pipe(
            Input.withHelp("role", "owner (runs the company and its people) or manager (no people)")
          )
        ),
        email: Input.text("email", { description: "the user's email, their sign-in name", example: "ada@example.com" }),
        name: Input.displayName("name", { description: "the user's name", example: "Ada Lovelace" }),
        passwordStdin: onOffFlag("password-stdin", "read the password from standard input instead of asking for it")
      },
      ({ admin, company, email, name, passwordStdin, role }) =>
        Effect.gen(function* () {
          const membership = yield* roleOf(admin, company, role)
          const password = yield* Password.read(passwordStdin)
          return yield* people((service) => service.createUser({ email, name, password, ...membership }))
        })
    ),
    command(
      "list",
      "list panel users: a company's, or every user",
      { company: optional(Input.uuid("company", "only this company's people")) },
      ({ company }) => people((service) => service.listUsers(Option.getOrNull(company) as Ids.CompanyId | null))
    ),
    command("enable", "let a user sign in again", { id: userId }, ({ id }) =>
      people((service) => service.setUserEnabled(id, true))
    ),
    command("disable", "stop a user from signing in, and end their sessions", { id: userId }, ({ id }) =>
      people((service) => service.setUserEnabled(id, false))
    ),
    command("sign-out-everywhere", "end every session of a user", { id: userId }, ({ id }) =>
      people((service) => Effect.map(service.signOutEverywhere(id), (sessions) => ({ signed_out: id, sessions })))
    ),
    command(
      "unlock",
      "forget an account's failed sign-ins (from every address), so that its owner can sign in at once",
      {
        email: Input.text("email", { description: "the account's email", example: "ada@example.com" })
      },
      ({ email }) =>
        people((service) => Effect.map(service.unlock(email), (failures) => ({ unlocked: email, failures })))
    )
  ])
)

export const audit = group("audit", "the audit log: who changed what, when, from where", ["list"]).pipe(
  Command.withSubcommands([
    command(
      "list",
      "list audit entries, newest first",
      {
        company: optional(Input.uuid("company", "only this company's entries")),
        limit: Input.wholeNumber("limit", { description: "how many entries", default: "50" }, 1, 1000).pipe(
          Flag.withDefault(50)
        ),
        before: optional(Input.uuid("before", "the entries older than this entry (the last id of the previous page)"))
      },
      ({ before, company, limit }) =>
        Effect.flatMap(AuditLog.AuditLog, (log) =>
          log.list({
            limit,
            ...(Option.isSome(company) ? { companyId: company.value as Ids.CompanyId } : {}),
            ...(Option.isSome(before) ? { before: before.value } : {})
          })
        )
    )
  ])
)
