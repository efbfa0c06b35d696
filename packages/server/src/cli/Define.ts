/** The two shapes of command the CLI has: an admin command, and a group that only names its commands. */
import { Admin } from "@catalog-sync/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { type AdminServices, chosen, UsageError } from "./Action.js"

/** Drops absent options, so that only the options given reach the admin use cases. */
export const given = (fields: Record<string, Option.Option<unknown>>) =>
  Object.fromEntries(
    Object.entries(fields).flatMap(([key, value]) => (Option.isSome(value) ? [[key, value.value]] : []))
  )

/** One admin command: `run` gets the parsed options and returns what to print. */
export const admin = <Name extends string, const Config extends Command.Command.Config>(
  name: Name,
  description: string,
  config: Config,
  run: (
    parsed: Command.Command.Config.Infer<Config>,
    admin: Admin.Admin["Service"]
  ) => Effect.Effect<unknown, unknown, AdminServices>
) =>
  Command.make(name, config, (parsed) =>
    chosen({ _tag: "Admin", run: Effect.flatMap(Admin.Admin, (service) => run(parsed, service)) })
  ).pipe(Command.withDescription(description))

/** One command on any of the admin services: `run` gets the parsed options and returns what to print. */
export const command = <Name extends string, const Config extends Command.Command.Config>(
  name: Name,
  description: string,
  config: Config,
  run: (parsed: Command.Command.Config.Infer<Config>) => Effect.Effect<unknown, unknown, AdminServices>
) =>
  Command.make(name, config, (parsed) => chosen({ _tag: "Admin", run: run(parsed) })).pipe(
    Command.withDescription(description)
  )

/** A command that only groups others: alone, it names them. */
export const group = <Name extends string>(name: Name, description: string, subcommands: ReadonlyArray<string>) =>
  Command.make(name, {}, () =>
    Effect.fail(
      new UsageError({
        command: name,
        message: `${name} needs a command: ${subcommands.map((sub) => `${name} ${sub}`).join(", ")} (see catalog-sync ${name} --help)`
      })
    )
  ).pipe(Command.withDescription(description))

export const optional = Flag.optional
