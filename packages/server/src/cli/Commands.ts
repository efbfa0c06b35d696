/**
 * The `catalog-sync` command line: the command tree (one module per group) and `parse`, which turns a
 * command line into the Action it asks for, or one UsageError line.
 */
import { Console, Effect, Ref } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import { type Action, Chosen, UsageError } from "./Action.js"
import { company } from "./CompanyCommands.js"
import { connection } from "./ConnectionCommands.js"
import { group } from "./Define.js"
import * as Help from "./Help.js"
import * as Input from "./Inputs.js"
import { jobs } from "./JobCommands.js"
import { key } from "./KeyCommands.js"
import { location } from "./LocationCommands.js"
import { migrate, quickstart, serve, status } from "./ServerCommands.js"
import { stock } from "./StockCommands.js"
import { audit, user } from "./UserCommands.js"

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
  "jobs",
  "user",
  "audit"
] as const

const root = group(
  "catalog-sync",
  'Catalog Sync server and admin CLI. Output is JSON; a failure prints {"error": {code, message}} on stderr and exits 1. Every command takes --help; --version prints the version.',
  [...topLevel]
).pipe(
  Command.withSubcommands([
    serve,
    migrate,
    quickstart,
    status,
    company,
    connection,
    location,
    stock,
    key,
    jobs,
    user,
    audit
  ])
)

const cli = Command.runWith(root, { version: "0.1.0", renderErrors: false })

/**
 * What the CLI prints itself: help (cleaned, see Help.ts) and the version on stdout. Its errors it leaves
 * to the caller, who prints them as JSON. The library's own flags (--completions, --log-level, ...) work
 * but are left out of every help.
 */
const presenter: CliOutput.Presenter = (() => {
  const formatter = CliOutput.defaultFormatter({ colors: process.stdout.isTTY === true, globalFlags: "none" })
  return {
    present: (event) => {
      switch (event._tag) {
        case "Help":
          // "Implicit" is the help the library shows with a parse error: the error line says it all.
          return event.reason === "Requested"
            ? Console.log(Help.clean(formatter.formatHelpDoc(event.helpDoc), process.stdout.isTTY === true))
            : Effect.void
        case "Version":
          return Console.log(formatter.formatVersion(event.name, event.version))
        case "InvalidInvocation":
          return Effect.void
      }
    }
  }
})()

const words = (argv: ReadonlyArray<string>) => argv.filter((arg) => !arg.startsWith("-"))

/** The library's message for a word that is no command names the parent instead; say what was typed and what is valid. */
const unknownCommand = (argv: ReadonlyArray<string>) => {
  const [first] = words(argv)
  return first !== undefined && !(topLevel as ReadonlyArray<string>).includes(first)
    ? `unknown command: ${first}; the commands are ${topLevel.join(", ")}`
    : `unknown command: ${words(argv).slice(0, 2).join(" ")} (see catalog-sync ${first ?? ""} --help)`
}

/**
 * The flag a mistyped one most likely meant, as the CLI has always offered it: a long flag of the command
 * within two edits, whose name is longer than three letters (shorter ones are too easily near anything).
 * The library lists the command's visible flags at the least edit distance, in declaration order.
 */
const correction = (error: CliError.UnrecognizedOption): string | undefined =>
  error.suggestions.find((flag) => flag.startsWith("--") && flag.length > 5)

/** A parse error as one line, in the words the CLI has always used. */
const messageOf = (error: CliError.CliError, argv: ReadonlyArray<string>): string => {
  switch (error._tag) {
    case "UnknownSubcommand":
      return unknownCommand(argv)
    case "MissingArgument":
      return `Missing argument <${error.argument}>`
    case "MissingOption":
      return `Expected to find option: '--${error.option}'`
    case "UnexpectedArgument":
      return `Received unknown argument: '${error.arguments[0] ?? ""}'`
    case "UnrecognizedOption": {
      const suggestion = correction(error)
      return suggestion === undefined
        ? `Received unknown argument: '${error.option}'`
        : `The flag '${error.option}' is not recognized. Did you mean '${suggestion}'?`
    }
    case "InvalidValue":
      return Input.isExplanation(error.expected)
        ? error.expected
        : error.kind === "flag" && error.value === ""
          ? `Expected a value following option: '--${error.option}'`
          : error.message.replace(/\s+/g, " ").trim()
    case "ShowHelp":
      return error.errors[0] === undefined ? error.message : messageOf(error.errors[0], argv)
    default:
      return error.message.replace(/\s+/g, " ").trim()
  }
}

/** The error a ShowHelp carries, if it carries one. */
const firstError = (error: CliError.CliError): CliError.CliError =>
  error._tag === "ShowHelp" && error.errors[0] !== undefined ? error.errors[0] : error

/**
 * Parses and checks a command line (without the `node script` prefix) and returns what it asks for.
 * No arguments means `serve`, as `npm start` has always run it; `help` is `--help`. Help and version go to
 * stdout; every problem is one UsageError line, never the library's own printout.
 */
export const parse = (argv: ReadonlyArray<string>): Effect.Effect<Action, UsageError, Command.Environment> => {
  if (argv.length === 0) return Effect.succeed({ _tag: "Serve" })
  const args = argv[0] === "help" ? [...argv.slice(1), "--help"] : argv
  return Effect.gen(function* () {
    const action = yield* Ref.make<Action | undefined>(undefined)
    yield* cli(args).pipe(Effect.provideService(Chosen, action), Effect.provide(CliOutput.layerPresenter(presenter)))
    return (yield* Ref.get(action)) ?? { _tag: "Printed" as const }
  }).pipe(
    Effect.catch((error) => {
      if (error instanceof UsageError) return Effect.fail(error)
      const [first] = words(args)
      if (!CliError.isCliError(error))
        return Effect.fail(new UsageError({ command: words(args).slice(0, 2).join(" "), message: String(error) }))
      const command =
        firstError(error)._tag === "UnknownSubcommand"
          ? (topLevel as ReadonlyArray<string>).includes(first ?? "")
            ? first!
            : ""
          : words(args).slice(0, 2).join(" ")
      return Effect.fail(new UsageError({ command, message: messageOf(error, args) }))
    })
  )
}
