#!/usr/bin/env node
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { NodePasswordHasher } from "@catalog-sync/adapter-http"
import { Admin, AuditLog, Ids, InventoryAdmin, JobAdmin, PeopleAdmin } from "@catalog-sync/core"
import { Cause, Config, Effect, Exit, Formatter, Layer, Logger, Option, References } from "effect"
import { cliActor } from "./cli/CliActor.js"
import { type Action, parse, UsageError } from "./cli/Commands.js"
import { checkKey, findServer } from "./cli/FindServer.js"
import { exports, notes, quickstart } from "./cli/Quickstart.js"
import { status } from "./cli/Status.js"
import { MediaStorageLive, PersistenceLive, ServerLive } from "./Server.js"
import { describeConfigError, ServerConfig } from "./ServerConfig.js"
import { describeStartFailure, StartupError } from "./Startup.js"

const print = (value: unknown) => Effect.sync(() => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`))

const fail = (error: { code: string; message: string; details?: unknown }) =>
  Effect.sync(() => {
    process.stderr.write(`${JSON.stringify({ error }, null, 2)}\n`)
    process.exitCode = 1
  })

/** Prints a failure as JSON on stderr, one line that names the problem; never a stack trace for bad input. */
const report = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isNone(failure)) return fail({ code: "internal_error", message: Cause.pretty(cause) })
  const error = failure.value
  if (error instanceof Config.ConfigError) return fail({ code: "config_invalid", message: describeConfigError(error) })
  if (error instanceof UsageError)
    return fail({
      code: "usage",
      message: error.message,
      details: { help: `catalog-sync ${error.command} --help`.replace(/\s+/g, " ") }
    })
  if (error instanceof StartupError) {
    return fail({
      code: error.code,
      message: error.message,
      ...(error.variable === undefined ? {} : { details: { variable: error.variable } })
    })
  }
  const described = error as { code?: string; message?: string; issues?: unknown }
  return fail({
    code: described.code ?? "error",
    message: described.message || String(error),
    ...(described.issues ? { details: described.issues } : {})
  })
}

const AdminLive = (config: ServerConfig) =>
  Layer.mergeAll(
    Admin.Admin.Default,
    InventoryAdmin.InventoryAdmin.Default,
    PeopleAdmin.PeopleAdmin.Default.pipe(Layer.provide(NodePasswordHasher.layer))
  ).pipe(
    // The audit log is read by `audit list`, and written by the admin services.
    Layer.provideMerge(PersistenceLive(config)),
    Layer.provide(Ids.IdsLive)
  )

/** The jobs commands need the media storage (for a resume's check), which the other commands never open. */
const JobAdminLive = (config: ServerConfig) =>
  JobAdmin.JobAdmin.Default.pipe(
    Layer.provide(MediaStorageLive(config)),
    Layer.provideMerge(PersistenceLive(config)),
    Layer.provide(Ids.IdsLive)
  )

const run = (action: Action) =>
  Effect.gen(function* () {
    if (action._tag === "Printed") return
    const config = yield* ServerConfig
    switch (action._tag) {
      case "Serve":
        return yield* Layer.launch(ServerLive(config)).pipe(
          Effect.mapError((error) => describeStartFailure(config, error))
        )
      case "Migrate":
        return yield* Effect.scoped(Layer.build(PersistenceLive(config))).pipe(
          Effect.mapError((error) => describeStartFailure(config, error)),
          Effect.andThen(print({ migrated: true }))
        )
      case "Admin":
        return yield* print(
          yield* action.run.pipe(Effect.provide(AdminLive(config)), Effect.provideService(AuditLog.Actor, cliActor()))
        )
      case "Jobs":
        return yield* print(
          yield* action.run.pipe(
            Effect.provide(JobAdminLive(config)),
            Effect.provideService(AuditLog.Actor, cliActor())
          )
        )
      case "Status":
        return yield* print(yield* status(config).pipe(Effect.provide(JobAdminLive(config))))
      case "Quickstart": {
        const url = yield* findServer(config, action.url)
        const result = yield* quickstart(url).pipe(
          Effect.provide(AdminLive(config)),
          Effect.provideService(AuditLog.Actor, cliActor())
        )
        const me = yield* checkKey(url, result.key)
        yield* Effect.sync(() => {
          process.stderr.write(notes(result, me, Option.isSome(action.url)))
          process.stdout.write(exports(result))
        })
      }
    }
  })

/**
 * One JSON line per log entry, with the fields (and their order) log pipelines already read: `logLevel`,
 * where Effect 4's JSON logger writes `level`.
 */
const jsonLogger = Logger.formatStructured.pipe(
  Logger.map(({ message, level, timestamp, cause, annotations, spans, fiberId }) =>
    Formatter.formatJson({ message, logLevel: level, timestamp, cause, annotations, spans, fiberId })
  ),
  Logger.withConsoleLog
)

const argv = process.argv.slice(2)

const program = parse(argv).pipe(
  Effect.flatMap((action) =>
    run(action).pipe(Effect.provideService(References.MinimumLogLevel, action._tag === "Serve" ? "All" : "Warn"))
  ),
  Effect.catchCause(report),
  Effect.provide(Logger.layer([jsonLogger])),
  Effect.provide(NodeServices.layer)
)

// Stopped by a signal is a clean stop (exit 0), as is every failure reported above (its exit code is set there).
NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : 0)
})
