import { Admin, InventoryAdmin, JobAdmin } from "@catalog-sync/core"
import { Effect } from "effect"
import { type Args, flag, integer, list, required, UsageError } from "./Args.js"

/** Drops undefined values, so that only the options given reach the admin use cases. */
const defined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))

const companyFields = (args: Args) =>
  defined({
    name: args.options.get("name"),
    currency: args.options.get("currency"),
    main_language: args.options.get("main-language"),
    languages: list(args.options.get("languages")),
    tax_model: args.options.get("tax-model"),
    tax_rates: list(args.options.get("tax-rates")),
    storage_slug: args.options.get("storage-slug"),
    subscription_active: flag(args.options.get("subscription"), "subscription"),
    stock_package: flag(args.options.get("stock-package"), "stock-package"),
    inventory_module: flag(args.options.get("inventory-module"), "inventory-module"),
    granted_scopes: list(args.options.get("scopes")),
    domains: list(args.options.get("domains")),
    enabled: flag(args.options.get("enabled"), "enabled")
  })

const id = (args: Args, position: number, what: string) => {
  const value = args.words[position]
  if (value === undefined) throw new UsageError(`give the ${what} id`)
  return value
}

export const usage = `catalog-sync <command>

  serve                                   start the HTTP server (npm start)
  migrate                                 apply database migrations and exit

  company create --name N --currency EUR --main-language en --storage-slug acme
                 [--languages de,fr] [--tax-model inclusive|exclusive|none|unconfigured]
                 [--tax-rates 20,10] [--scopes catalog:read,catalog:write,...]
                 [--subscription on|off] [--stock-package on|off] [--inventory-module on|off]
                 [--domains api.acme.example]
  company update <company-id> [any create option] [--enabled on|off]
  company enable|disable <company-id>
  company grant|revoke <company-id> --scopes s1,s2
  company show <company-id>
  company list

  connection create --company <company-id> --name ERP
  connection enable|disable <connection-id>
  connection list --company <company-id>

  location create --company <company-id> --name Warehouse
  location assign --connection <connection-id> --location <location-id> [--writable on|off]
  location list --company <company-id>

  stock reserve --company <company-id> --item <inventory-item-id> --location <location-id>
                [--reserved 2] [--incoming 5]   (orders and purchases; bumps the location revision)

  key create --connection <connection-id> --scopes catalog:read,catalog:write --days 90 [--name N]
  key list --company <company-id>
  key revoke <key-id>

  jobs paused [--company <company-id>]    media jobs paused by a storage refusal (all companies, or one)
  jobs resume --company <company-id>      check the media storage, then resume the company's paused jobs
  jobs resume --all                       the same for every company with paused jobs

Output is JSON. The secret of a new key is printed once, in "token"; only its hash is stored.`

/** Runs one admin command and returns what to print. */
export const runCommand = (args: Args) =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    const [group, action] = args.words
    switch (`${group ?? ""} ${action ?? ""}`) {
      case "company create":
        return yield* admin.createCompany(companyFields(args))
      case "company update":
        return yield* admin.updateCompany(id(args, 2, "company"), companyFields(args))
      case "company enable":
      case "company disable":
        return yield* admin.updateCompany(id(args, 2, "company"), { enabled: action === "enable" })
      case "company grant":
        return yield* admin.grantScopes(id(args, 2, "company"), list(required(args, "scopes")) ?? [])
      case "company revoke":
        return yield* admin.revokeScopes(id(args, 2, "company"), list(required(args, "scopes")) ?? [])
      case "company show":
        return yield* admin.getCompany(id(args, 2, "company"))
      case "company list":
        return yield* admin.listCompanies
      case "connection create":
        return yield* admin.createConnection(required(args, "company"), required(args, "name"))
      case "connection enable":
      case "connection disable":
        return yield* admin.setConnectionEnabled(id(args, 2, "connection"), action === "enable")
      case "connection list":
        return yield* admin.listConnections(required(args, "company"))
      case "location create":
        return yield* admin.createLocation(required(args, "company"), required(args, "name"))
      case "location assign":
        return yield* admin.assignLocation(
          required(args, "connection"),
          required(args, "location"),
          flag(args.options.get("writable"), "writable") ?? true
        )
      case "location list":
        return yield* admin.listLocations(required(args, "company"))
      case "stock reserve":
        return yield* Effect.flatMap(InventoryAdmin.InventoryAdmin, (inventory) =>
          inventory.reserve(
            required(args, "company"),
            required(args, "item"),
            required(args, "location"),
            defined({ reserved: args.options.get("reserved"), incoming: args.options.get("incoming") })
          )
        )
      case "key create":
        return yield* admin.createKey(
          defined({
            connection_id: required(args, "connection"),
            scopes: list(required(args, "scopes")),
            lifetime_days: integer(required(args, "days"), "days"),
            name: args.options.get("name")
          })
        )
      case "key list":
        return yield* admin.listKeys(required(args, "company"))
      case "key revoke":
        yield* admin.revokeKey(id(args, 2, "key"))
        return { revoked: args.words[2] }
      default:
        throw new UsageError(`unknown command: ${args.words.join(" ") || "(none)"}`)
    }
  })

/** Runs one `jobs` command (they need the media storage, which the other commands never open). */
export const runJobsCommand = (args: Args) =>
  Effect.gen(function* () {
    const jobs = yield* JobAdmin.JobAdmin
    const [, action] = args.words
    switch (action) {
      case "paused":
        return yield* jobs.paused(args.options.get("company"))
      case "resume": {
        const company = args.options.get("company")
        const all = args.options.has("all")
        if ((company === undefined) === !all) throw new UsageError("give --company <company-id> or --all")
        return company === undefined ? yield* jobs.resumeAll : yield* jobs.resume(company)
      }
      default:
        throw new UsageError(`unknown command: ${args.words.join(" ")}`)
    }
  })
