/**
 * The `catalog-sync` command line: the command tree (one module per group) and `parse`, which turns a
 * command line into the Action it asks for, or one UsageError line.
 */
import { CliConfig, Command, HelpDoc, ValidationError } from "@effect/cli"
import type { CliApp } from "@effect/cli"
import { Console, Effect, Ref } from "effect"
import { type Action, Chosen, UsageError } from "./Action.js"
import { company } from "./CompanyCommands.js"
import { connection } from "./ConnectionCommands.js"
import { group } from "./Define.js"
import * as Help from "./Help.js"
import { jobs } from "./JobCommands.js"
import { key } from "./KeyCommands.js"
import { location } from "./LocationCommands.js"
import { migrate, quickstart, serve, status } from "./ServerCommands.js"
import { stock } from "./StockCommands.js"

export { type Action, type AdminServices, UsageError } from "./Action.js"

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
  'Catalog Sync server and admin CLI. Output is JSON; a failure prints {"error": {code, message}} on stderr and exits 1. Every command takes --help; --version prints the version.',
  [...topLevel]
).pipe(Command.withSubcommands([serve, migrate, quickstart, status, company, connection, location, stock, key, jobs]))

const cli = Command.run(root, { name: "catalog-sync", version: "0.1.0" })

/** The library's own options (--completions, --log-level, --wizard, ...) work but are left out of every help. */
const config = CliConfig.layer({ showBuiltIns: false })

/** HelpDoc as one plain line (no colours, no layout). */
const oneLine = (doc: HelpDoc.HelpDoc) => Help.plain(HelpDoc.toAnsiText(doc)).replace(/\s+/g, " ").trim()

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
    // The command's words, for its help: what precedes the first option.
    const dash = args.findIndex((arg) => arg.startsWith("-"))
    const command = dash < 0 ? args : args.slice(0, dash)
    yield* Console.consoleWith((console) =>
      Effect.withConsole(cli(["node", "catalog-sync", ...args]), {
        ...console,
        log: (...printed) =>
          console.log(
            ...printed.map((text) =>
              typeof text === "string" ? Help.clean(text, command, process.stdout.isTTY === true) : text
            )
          ),
        // The library prints its errors itself; the caller prints them, as JSON.
        error: () => Effect.void
      })
    ).pipe(Effect.provideService(Chosen, action), Effect.provide(config))
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
