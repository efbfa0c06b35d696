#!/usr/bin/env node
import { NodeRuntime } from "@effect/platform-node"
import { Admin, Ids, InventoryAdmin, JobAdmin } from "@catalog-sync/core"
import { Cause, ConfigError, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { parseArgs, UsageError } from "./cli/Args.js"
import { runCommand, runJobsCommand, usage } from "./cli/Commands.js"
import { MediaStorageLive, PersistenceLive, ServerLive } from "./Server.js"
import { describeConfigError, ServerConfig } from "./ServerConfig.js"
import { describeStartFailure, StartupError } from "./Startup.js"

const print = (value: unknown) => Effect.sync(() => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`))

const fail = (error: { code: string; message: string; details?: unknown }) =>
  Effect.sync(() => {
    process.stderr.write(`${JSON.stringify({ error }, null, 2)}\n`)
    process.exitCode = 1
  })

/** Prints a failure of an admin command as JSON on stderr; never a stack trace for bad input. */
const report = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && ConfigError.isConfigError(failure.value)) {
    return fail({ code: "config_invalid", message: describeConfigError(failure.value) })
  }
  if (Option.isSome(failure) && failure.value instanceof StartupError) {
    const { code, message, variable } = failure.value
    return fail({ code, message, ...(variable === undefined ? {} : { details: { variable } }) })
  }
  if (Option.isSome(failure)) {
    const error = failure.value as { code?: string; message?: string; issues?: unknown }
    return fail({ code: error.code ?? "error", message: error.message ?? String(error), ...(error.issues ? { details: error.issues } : {}) })
  }
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect) && defect.value instanceof UsageError) {
    return fail({ code: "usage", message: defect.value.message }).pipe(Effect.zipRight(Effect.sync(() => process.stderr.write(`\n${usage}\n`))))
  }
  return fail({ code: "internal_error", message: Cause.pretty(cause) })
}

const argv = process.argv.slice(2)
const command = argv[0] ?? "serve"

const program = Effect.gen(function* () {
  const config = yield* ServerConfig
  if (command === "serve") {
    return yield* Layer.launch(ServerLive(config)).pipe(Effect.mapError((error) => describeStartFailure(config, error)))
  }
  if (command === "migrate") {
    return yield* Effect.scoped(Layer.build(PersistenceLive(config))).pipe(Effect.zipRight(print({ migrated: true })))
  }
  if (command === "help" || command === "--help") return yield* Effect.sync(() => process.stdout.write(`${usage}\n`))
  const args = yield* Effect.try({ try: () => parseArgs(argv), catch: (e) => e })
  const result: unknown =
    args.words[0] === "jobs"
      ? yield* Effect.suspend(() => runJobsCommand(args)).pipe(
          Effect.provide(JobAdmin.JobAdmin.Default.pipe(Layer.provide(MediaStorageLive(config)), Layer.provide(PersistenceLive(config))))
        )
      : yield* Effect.suspend(() => runCommand(args)).pipe(
          Effect.provide(
            Layer.mergeAll(Admin.Admin.Default, InventoryAdmin.InventoryAdmin.Default).pipe(
              Layer.provide(PersistenceLive(config)),
              Layer.provide(Ids.IdsLive)
            )
          )
        )
  yield* print(result)
}).pipe(
  Effect.catchAllCause(report),
  Effect.provide(Logger.json),
  Logger.withMinimumLogLevel(command === "serve" ? LogLevel.All : LogLevel.Warning)
)

NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
