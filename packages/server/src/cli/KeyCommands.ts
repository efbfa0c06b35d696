/** `catalog-sync key ...`: API keys of a connection; a new key's secret is printed once. */
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import { admin, given, group, optional } from "./Define.js"
import * as Input from "./Inputs.js"
import { companyOption, connectionOption } from "./SharedOptions.js"

export const key = group("key", "API keys", ["create", "list", "revoke"]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a time-limited key; its secret is printed once, in token",
      {
        connection: connectionOption,
        scopes: Input.scopes({ description: "the key's scopes, which the company must have been granted" }),
        days: Input.wholeNumber("days", { description: "the key's lifetime in days, 1 to 365", example: "90" }, 1, 365),
        name: optional(Input.displayName("name", { description: "a name for the key", example: "erp-sync" }))
      },
      ({ connection, scopes, days, name }, admin) =>
        admin.createKey({ connection_id: connection, scopes, lifetime_days: days, ...given({ name }) })
    ),
    admin("list", "list a company's keys, without secrets", { company: companyOption }, ({ company }, admin) =>
      admin.listKeys(company)
    ),
    admin(
      "revoke",
      "stop a key at once",
      {
        id: Argument.String("key-id").pipe(
          Argument.withDescription("the key's id: the 24 hex digits after csk_"),
          Argument.mapTryCatch(
            (raw) => {
              if (!/^[0-9a-f]{24}$/.test(raw))
                throw new Error(`<key-id> must be the 24 hex digits after csk_ (as key list shows), not "${raw}"`)
              return raw
            },
            (error) => Input.explain((error as Error).message)
          )
        )
      },
      ({ id }, admin) => Effect.as(admin.revokeKey(id), { revoked: id })
    )
  ])
)
