import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import type { CliApp } from "@effect/cli"
import { Admin, InventoryAdmin, JobAdmin } from "@catalog-sync/core"
import { Console, Context, Data, Effect, Option, Ref, type Types } from "effect"
import * as Input from "./Inputs.js"

/** A command line the CLI does not take; `message` is one line, `command` the words of the command it was for. */
export class UsageError extends Data.TaggedError("UsageError")<{
  readonly message: string
  readonly command: string
}> {}

/** The admin services an admin command runs on. */
export type AdminServices = Admin.Admin | InventoryAdmin.InventoryAdmin

/** What a command line asks for, parsed and checked; `cli.ts` runs it with the services it needs. */
export type Action =
  | { readonly _tag: "Serve" }
  | { readonly _tag: "Migrate" }
  /** An admin command: its result is printed as JSON. */
  | { readonly _tag: "Admin"; readonly run: Effect.Effect<unknown, unknown, AdminServices> }
  /** A `jobs` command (they need the media storage, which the other commands never open). */
  | { readonly _tag: "Jobs"; readonly run: Effect.Effect<unknown, unknown, JobAdmin.JobAdmin> }
  | { readonly _tag: "Quickstart"; readonly url: Option.Option<string> }
  /** The operator's overview: queue depth, oldest queued job, paused media companies, the database. */
  | { readonly _tag: "Status" }
  /** Help or the version was printed; nothing to run. */
  | { readonly _tag: "Printed" }

/** Drops absent options, so that only the options given reach the admin use cases. */
const given = (fields: Record<string, Option.Option<unknown>>) =>
  Object.fromEntries(
    Object.entries(fields).flatMap(([key, value]) => (Option.isSome(value) ? [[key, value.value]] : []))
  )

const optional = Options.optional

const companyOptions = {
  currency: optional(Input.currency),
  main_language: optional(Input.mainLanguage),
  languages: optional(Input.languages),
  tax_model: optional(
    Options.choice("tax-model", ["inclusive", "exclusive", "none", "unconfigured"]).pipe(
      Options.withDescription("how prices relate to tax")
    )
  ),
  tax_rates: optional(Input.list("tax-rates", "the configured tax rates in percent, comma-separated, e.g. 20,10")),
  storage_slug: optional(
    Input.text("storage-slug", "the company's media folder: 2-63 lower-case letters, digits or dashes")
  ),
  subscription_active: optional(Input.onOff("subscription", "whether the subscription is active (default on)")),
  stock_package: optional(Input.onOff("stock-package", "the stock package (default off)")),
  inventory_module: optional(Input.onOff("inventory-module", "the inventory module (default off)")),
  granted_scopes: optional(Input.scopes("the scopes granted to the company")),
  domains: optional(Input.list("domains", "custom domains, comma-separated, e.g. api.acme.example"))
}

const companyId = Input.uuidArg("company-id", "the company's id")
const connectionId = Input.uuidArg("connection-id", "the connection's id")
const companyOption = Input.uuid("company", "the company's id")

/** One admin command: `run` gets the parsed options and returns what to print. */
const admin = <Name extends string, Config extends Command.Command.Config>(
  name: Name,
  description: string,
  config: Config,
  run: (
    parsed: Types.Simplify<Command.Command.ParseConfig<Config>>,
    admin: Admin.Admin
  ) => Effect.Effect<unknown, unknown, AdminServices>
) =>
  Command.make(name, config, (parsed) =>
    chosen({ _tag: "Admin", run: Effect.flatMap(Admin.Admin, (service) => run(parsed, service)) })
  ).pipe(Command.withDescription(description))

/** Where the command handlers record the action of the command line; they run nothing themselves. */
class Chosen extends Context.Tag("@catalog-sync/server/cli/Chosen")<Chosen, Ref.Ref<Action | undefined>>() {}
const chosen = (action: Action) => Effect.flatMap(Chosen, (ref) => Ref.set(ref, action))

/** A command that only groups others: alone, it names them. */
const group = <Name extends string>(name: Name, description: string, subcommands: ReadonlyArray<string>) =>
  Command.make(name, {}, () =>
    Effect.fail(
      new UsageError({
        command: name,
        message: `${name} needs a command: ${subcommands.map((sub) => `${name} ${sub}`).join(", ")} (see catalog-sync ${name} --help)`
      })
    )
  ).pipe(Command.withDescription(description))

const company = group("company", "companies: create, change, enable or disable, grant scopes", [
  "create",
  "update",
  "enable",
  "disable",
  "grant",
  "revoke",
  "show",
  "list"
]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a company (the platform enables it and grants its scopes)",
      {
        ...companyOptions,
        name: Input.text("name", "the company's name"),
        currency: Input.currency,
        main_language: Input.mainLanguage,
        storage_slug: Input.text(
          "storage-slug",
          "the company's media folder: 2-63 lower-case letters, digits or dashes"
        )
      },
      ({ name, currency, main_language, storage_slug, ...rest }, admin) =>
        admin.createCompany({ name, currency, main_language, storage_slug, ...given(rest) })
    ),
    admin(
      "update",
      "change a company: any option of create, and --enabled",
      {
        id: companyId,
        name: optional(Input.text("name", "the company's name")),
        enabled: optional(Input.onOff("enabled", "whether the company may use the API")),
        ...companyOptions
      },
      ({ id, ...rest }, admin) => admin.updateCompany(id, given(rest))
    ),
    admin("enable", "let a company use the API again", { id: companyId }, ({ id }, admin) =>
      admin.updateCompany(id, { enabled: true })
    ),
    admin("disable", "stop all access of a company at once", { id: companyId }, ({ id }, admin) =>
      admin.updateCompany(id, { enabled: false })
    ),
    admin(
      "grant",
      "grant scopes to a company",
      { id: companyId, scopes: Input.scopes("the scopes to grant") },
      ({ id, scopes }, admin) => admin.grantScopes(id, scopes)
    ),
    admin(
      "revoke",
      "take scopes back from a company (its keys lose them at once)",
      { id: companyId, scopes: Input.scopes("the scopes to revoke") },
      ({ id, scopes }, admin) => admin.revokeScopes(id, scopes)
    ),
    admin("show", "show one company", { id: companyId }, ({ id }, admin) => admin.getCompany(id)),
    admin("list", "list every company", {}, (_, admin) => admin.listCompanies)
  ])
)

const connection = group("connection", "connections, one per source system", [
  "create",
  "enable",
  "disable",
  "list"
]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a connection of a company",
      { company: companyOption, name: Input.text("name", "the source system's name, e.g. ERP") },
      ({ company, name }, admin) => admin.createConnection(company, name)
    ),
    admin("enable", "let a connection's keys work again", { id: connectionId }, ({ id }, admin) =>
      admin.setConnectionEnabled(id, true)
    ),
    admin("disable", "stop every key of a connection", { id: connectionId }, ({ id }, admin) =>
      admin.setConnectionEnabled(id, false)
    ),
    admin("list", "list a company's connections", { company: companyOption }, ({ company }, admin) =>
      admin.listConnections(company)
    )
  ])
)

const location = group("location", "stock locations", ["create", "assign", "list"]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a stock location of a company",
      { company: companyOption, name: Input.text("name", "the location's name, e.g. Warehouse") },
      ({ company, name }, admin) => admin.createLocation(company, name)
    ),
    admin(
      "assign",
      "let a connection read (and write) a location's stock",
      {
        connection: Input.uuid("connection", "the connection's id"),
        location: Input.uuid("location", "the location's id"),
        writable: Input.onOff("writable", "whether the connection may write the stock").pipe(Options.withDefault(true))
      },
      ({ connection, location, writable }, admin) => admin.assignLocation(connection, location, writable)
    ),
    admin("list", "list a company's locations", { company: companyOption }, ({ company }, admin) =>
      admin.listLocations(company)
    )
  ])
)

const stock = group("stock", "stock quantities that come from outside the API", ["reserve"]).pipe(
  Command.withSubcommands([
    admin(
      "reserve",
      "set the reserved and/or incoming quantity of an item at a location (orders and purchases; bumps the location revision)",
      {
        company: companyOption,
        item: Input.uuid("item", "the inventory item's id"),
        location: Input.uuid("location", "the location's id"),
        reserved: optional(Input.quantity("reserved", "the reserved quantity")),
        incoming: optional(Input.quantity("incoming", "the incoming quantity"))
      },
      ({ company, item, location, reserved, incoming }) =>
        Effect.flatMap(InventoryAdmin.InventoryAdmin, (inventory) =>
          inventory.reserve(company, item, location, given({ reserved, incoming }))
        )
    )
  ])
)

const key = group("key", "API keys", ["create", "list", "revoke"]).pipe(
  Command.withSubcommands([
    admin(
      "create",
      "create a time-limited key; its secret is printed once, in token",
      {
        connection: Input.uuid("connection", "the connection's id"),
        scopes: Input.scopes("the key's scopes, among those granted to the company"),
        days: Input.wholeNumber("days", "the key's lifetime in days (1-365)", 1, 365),
        name: optional(Input.text("name", "a name for the key"))
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
        id: Args.text({ name: "key-id" }).pipe(
          Args.withDescription("the key's id: the 24 hex digits after csk_"),
          Args.mapTryCatch(
            (raw) => {
              if (!/^[0-9a-f]{24}$/.test(raw))
                throw new Error(`<key-id> must be the 24 hex digits after csk_ (as key list shows), not "${raw}"`)
              return raw
            },
            (error) => HelpDoc.p((error as Error).message)
          )
        )
      },
      ({ id }, admin) => Effect.as(admin.revokeKey(id), { revoked: id })
    )
  ])
)

const jobsAction = (run: Effect.Effect<unknown, unknown, JobAdmin.JobAdmin>) => chosen({ _tag: "Jobs", run })

const jobId = Input.uuidArg("job-id", "the job's id")

const jobs = group(
  "jobs",
  "background jobs (imports, media): list, show, retry; media jobs paused by a storage refusal",
  ["list", "show", "retry", "paused", "resume"]
).pipe(
  Command.withSubcommands([
    Command.make(
      "list",
      {
        company: optional(companyOption),
        state: optional(
          Options.choice("state", ["queued", "running", "completed", "failed", "paused"]).pipe(
            Options.withDescription("only jobs in this state")
          )
        ),
        kind: optional(
          Options.choice("kind", ["import", "media"]).pipe(Options.withDescription("only jobs of this kind"))
        ),
        limit: Input.wholeNumber("limit", "how many jobs, oldest first (1-1000, default 100)", 1, 1000).pipe(
          Options.withDefault(100)
        )
      },
      ({ company, state, kind, limit }) =>
        jobsAction(
          Effect.flatMap(JobAdmin.JobAdmin, (jobs) =>
            jobs.list({
              companyId: Option.getOrUndefined(company),
              state: Option.getOrUndefined(state),
              kind: Option.getOrUndefined(kind),
              limit
            })
          )
        )
    ).pipe(
      Command.withDescription("jobs of every company or one (--company), narrowed by --state and --kind, oldest first")
    ),
    Command.make("show", { id: jobId }, ({ id }) =>
      jobsAction(Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.show(id)))
    ).pipe(Command.withDescription("one job with its report: an import's counts and failed records, a job's failure")),
    Command.make("retry", { id: jobId }, ({ id }) =>
      jobsAction(Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.retry(id)))
    ).pipe(
      Command.withDescription(
        "run a failed or paused job again (an import completed with failed records runs those again), for the key that queued it"
      )
    ),
    Command.make("paused", { company: optional(companyOption) }, ({ company }) =>
      jobsAction(Effect.flatMap(JobAdmin.JobAdmin, (jobs) => jobs.paused(Option.getOrUndefined(company))))
    ).pipe(Command.withDescription("media jobs paused by a storage refusal (all companies, or one)")),
    Command.make(
      "resume",
      {
        company: optional(companyOption),
        all: Options.boolean("all").pipe(Options.withDescription("every company with paused jobs"))
      },
      ({ company, all }) =>
        Option.isSome(company) === all
          ? Effect.fail(
              new UsageError({
                command: "jobs resume",
                message: "jobs resume needs --company <company-id> or --all (one of them)"
              })
            )
          : jobsAction(
              Effect.flatMap(JobAdmin.JobAdmin, (jobs): Effect.Effect<unknown, unknown> =>
                Option.isSome(company) ? jobs.resume(company.value) : jobs.resumeAll
              )
            )
    ).pipe(
      Command.withDescription(
        "check the media storage, then resume the paused jobs of a company (--company) or of all (--all)"
      )
    )
  ])
)

const serve = Command.make("serve", {}, () => chosen({ _tag: "Serve" })).pipe(
  Command.withDescription("start the HTTP server (what npm start runs)")
)
const migrate = Command.make("migrate", {}, () => chosen({ _tag: "Migrate" })).pipe(
  Command.withDescription("apply the database migrations and exit")
)
const quickstart = Command.make(
  "quickstart",
  {
    url: optional(
      Options.text("url").pipe(Options.withDescription("the server's URL to print (default from HOST and PORT)"))
    )
  },
  ({ url }) => chosen({ _tag: "Quickstart", url })
).pipe(
  Command.withDescription(
    'create a demo company, connection and key on the local database and print `export CATALOG_SYNC_URL=... CATALOG_SYNC_KEY=...`: eval "$(catalog-sync quickstart)"'
  )
)

const status = Command.make("status", {}, () => chosen({ _tag: "Status" })).pipe(
  Command.withDescription(
    "queue depth by kind and state, the oldest queued job's age, companies with paused media jobs, the database in use"
  )
)

const topLevel = [
  "serve",
  "migrate",
  "quickstart",
  "status",
  "company",
  "connection",
  "location",
  "stock",
  "key",
  "jobs"
] as const

const root = group(
  "catalog-sync",
  'Catalog Sync server and admin CLI. Output is JSON; a failure prints {"error": {code, message}} on stderr and exits 1.',
  [...topLevel]
).pipe(Command.withSubcommands([serve, migrate, quickstart, status, company, connection, location, stock, key, jobs]))

const cli = Command.run(root, { name: "catalog-sync", version: "0.1.0" })

/** HelpDoc as one plain line (no colours, no layout). */
const oneLine = (doc: HelpDoc.HelpDoc) =>
  HelpDoc.toAnsiText(doc)
    // biome-ignore lint: ANSI escapes are what is being removed
    .replace(/\u001b\[[0-9;]*m/g, "")
    .replace(/\s+/g, " ")
    .trim()

const words = (argv: ReadonlyArray<string>) => argv.filter((arg) => !arg.startsWith("-"))

/** @effect/cli's message for a word that is no command names the parent instead; say what was typed and what is valid. */
const unknownCommand = (argv: ReadonlyArray<string>) => {
  const [first] = words(argv)
  return first !== undefined && !(topLevel as ReadonlyArray<string>).includes(first)
    ? `unknown command: ${first}; the commands are ${topLevel.join(", ")}`
    : `unknown command: ${words(argv).slice(0, 2).join(" ")} (see catalog-sync ${first ?? ""} --help)`
}

/**
 * Parses and checks a command line (without the `node script` prefix) and returns what it asks for.
 * No arguments means `serve`, as `npm start` has always run it; `help` is `--help`. Help and version go to
 * stdout; every problem is one UsageError line, never the library's own printout.
 */
export const parse = (argv: ReadonlyArray<string>): Effect.Effect<Action, UsageError, CliApp.CliApp.Environment> => {
  if (argv.length === 0) return Effect.succeed({ _tag: "Serve" })
  const args = argv[0] === "help" ? [...argv.slice(1), "--help"] : argv
  return Effect.gen(function* () {
    const action = yield* Ref.make<Action | undefined>(undefined)
    yield* Console.consoleWith((console) =>
      // The library prints its errors itself; the caller prints them, as JSON.
      Effect.withConsole(cli(["node", "catalog-sync", ...args]), { ...console, error: () => Effect.void })
    ).pipe(Effect.provideService(Chosen, action))
    return (yield* Ref.get(action)) ?? { _tag: "Printed" as const }
  }).pipe(
    Effect.catchAll((error) => {
      if (error instanceof UsageError) return Effect.fail(error)
      const [first] = words(args)
      const command =
        ValidationError.isValidationError(error) && ValidationError.isCommandMismatch(error)
          ? (topLevel as ReadonlyArray<string>).includes(first ?? "")
            ? first!
            : ""
          : words(args).slice(0, 2).join(" ")
      if (ValidationError.isValidationError(error)) {
        const doc = (error as { readonly error?: HelpDoc.HelpDoc }).error
        const message = ValidationError.isCommandMismatch(error)
          ? unknownCommand(args)
          : doc === undefined
            ? error._tag
            : oneLine(doc)
        return Effect.fail(new UsageError({ command, message }))
      }
      return Effect.fail(new UsageError({ command, message: String(error) }))
    })
  )
}
