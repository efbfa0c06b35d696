/**
 * `catalog-sync-load`: the bulk loader on the command line (docs/bulk-load.md). Progress goes to stderr
 * (live bars on a terminal; otherwise lines per resource: when it starts, every 10 s at most while it
 * moves, when it is done), the summary to stdout;
 * `--json` writes JSON lines to stdout instead. Exit code 0: everything loaded; 1: some records failed
 * (see the report); 2: the load could not run or stopped (rerun the same command to continue); 130: Ctrl-C.
 */
import { NodeFileSystem, NodeRuntime } from "@effect/platform-node"
import cliProgress from "cli-progress"
import { Cause, Effect, Exit, Option } from "effect"
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { csvResources, type HeaderMap } from "../loader/CsvMapping.js"
import { load, type LoadOptions, type LoadSummary } from "../loader/Loader.js"
import { plainProgress } from "../loader/PlainProgress.js"
import { duration, type Snapshot } from "../loader/Progress.js"

const usage = `Usage: catalog-sync-load [options] <input>...

Loads a catalog into a Catalog Sync server: images first, then customization types, groups and options,
categories (parents first), brands, collections and products, in import batches of 50.

Inputs ([resource=]path, files or folders):
  data.jsonl                 one {"resource": ..., "body": {...}} per line
  products.jsonl             one body per line; the resource comes from the file name (or products=file)
  products.csv, categories.csv   CSV with the documented columns (docs/bulk-load.md)
  media.jsonl                images: {"external_id", "name", "purpose", "file"} per line

Options:
  --url <origin>             server (env CATALOG_SYNC_URL; default http://localhost:8080)
  --key <api key>            a key of the connection; repeat for more rate budget (env CATALOG_SYNC_KEYS, comma-separated)
  --images <folder>          images of products and categories; external_id = path within the folder
  --option-images <folder>   images of customization options
  --csv-columns <file.json>  {"products": {"Source header": "name" | null}, "categories": {...}}
  --state-dir <folder>       where the state and the report go (default: the folder of the first input)
  --state <file>             state of the load, for resuming (default <state-dir>/catalog-sync-load.state.jsonl)
  --report <file>            failed records, one JSON line each, written only if some failed
                             (default <state-dir>/catalog-sync-load.failures.jsonl)
  --dry-run                  send every batch as a dry run: nothing is written
  --retry-failed             re-send only the records of the report (after fixing the input)
  --max-pending <n>          jobs in flight, 1-20 (default 10)
  --batch-size <n>           records per import, 1-50 (default 50)
  --json                     progress and summary as JSON lines on stdout
  --help

Interrupted (Ctrl-C, a crash)? Run the same command again: it continues where it stopped.`

class UsageError extends Error {}

const parse = (argv: ReadonlyArray<string>): { options: LoadOptions; json: boolean } | "help" => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      url: { type: "string" },
      key: { type: "string", multiple: true },
      images: { type: "string" },
      "option-images": { type: "string" },
      "csv-columns": { type: "string" },
      "state-dir": { type: "string" },
      state: { type: "string" },
      report: { type: "string" },
      "dry-run": { type: "boolean" },
      "retry-failed": { type: "boolean" },
      "max-pending": { type: "string" },
      "batch-size": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" }
    }
  })
  if (values.help === true) return "help"
  const keys =
    values.key ??
    (process.env.CATALOG_SYNC_KEYS ?? process.env.CATALOG_SYNC_KEY ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter((k) => k !== "")
  if (keys.length === 0) throw new UsageError("give an API key with --key or CATALOG_SYNC_KEYS")
  if (positionals.length === 0) throw new UsageError("give at least one input file or folder")
  const number = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined
    if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number`)
    return Number(value)
  }
  const maxPending = number("max-pending", values["max-pending"])
  const batchSize = number("batch-size", values["batch-size"])
  let csvColumns: LoadOptions["csvColumns"]
  if (values["csv-columns"] !== undefined) {
    let parsed: Record<string, HeaderMap>
    try {
      parsed = JSON.parse(readFileSync(values["csv-columns"], "utf8")) as Record<string, HeaderMap>
    } catch (error) {
      throw new UsageError(`--csv-columns ${values["csv-columns"]}: ${(error as Error).message}`)
    }
    for (const resource of Object.keys(parsed)) {
      if (!(csvResources as ReadonlyArray<string>).includes(resource))
        throw new UsageError(`--csv-columns: ${resource} is not products or categories`)
    }
    csvColumns = parsed
  }
  const json = values.json === true
  return {
    json,
    options: {
      baseUrl: (values.url ?? process.env.CATALOG_SYNC_URL ?? "http://localhost:8080").replace(/\/+$/, ""),
      apiKeys: keys,
      inputs: positionals,
      images: { catalog: values.images, option: values["option-images"] },
      dryRun: values["dry-run"] === true,
      retryFailed: values["retry-failed"] === true,
      ...(values["state-dir"] === undefined ? {} : { stateDir: values["state-dir"] }),
      ...(values.state === undefined ? {} : { statePath: values.state }),
      ...(values.report === undefined ? {} : { reportPath: values.report }),
      ...(csvColumns === undefined ? {} : { csvColumns }),
      ...(maxPending === undefined ? {} : { maxPending }),
      ...(batchSize === undefined ? {} : { batchSize }),
      progressInterval: json ? "2 seconds" : process.stderr.isTTY ? "200 millis" : "1 second"
    }
  }
}

/** Live bars on the terminal (stderr), one per resource from when the load starts sending it. */
const bars = () => {
  const multibar = new cliProgress.MultiBar(
    {
      format: "{resource} {bar} {value}/{total} | {rate}/s | ETA {eta_text} | {failed} failed",
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      barsize: 30,
      stream: process.stderr
    },
    cliProgress.Presets.shades_classic
  )
  const shown = new Map<string, cliProgress.SingleBar>()
  return {
    render: (snapshot: Snapshot) => {
      const width = Math.max(...snapshot.resources.map((r) => r.resource.length), 0)
      for (const p of snapshot.resources) {
        if (!p.started) continue
        const payload = {
          resource: p.resource.padEnd(width),
          rate: p.rate.toFixed(1),
          eta_text: duration(p.eta),
          failed: p.failed
        }
        const bar = shown.get(p.resource)
        if (bar === undefined) shown.set(p.resource, multibar.create(p.total, p.done, payload))
        else {
          bar.setTotal(p.total)
          bar.update(p.done, payload)
        }
      }
    },
    stop: () => multibar.stop()
  }
}

const print = (text: string) => process.stdout.write(`${text}\n`)
const records = (n: number) => `${n} ${n === 1 ? "record" : "records"}`

const printSummary = (summary: LoadSummary) => {
  if (summary.alreadyFinished) {
    print(
      summary.failed === 0
        ? `This load has finished before (see ${summary.statePath}); nothing to do.`
        : `This load has finished before with ${records(summary.failed)} failed (${summary.reportPath}); fix the input and run with --retry-failed.`
    )
    return
  }
  const what = summary.dryRun
    ? "Dry run (nothing was written)"
    : summary.round === 0
      ? "Loaded"
      : `Retry ${summary.round}`
  print(`${what} in ${duration(summary.elapsedMs / 1000)}:`)
  const width = Math.max(...summary.resources.map((r) => r.resource.length), 0)
  for (const r of summary.resources) {
    print(
      `  ${r.resource.padEnd(width)}  ${r.done}/${r.total}: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.failed} failed`
    )
  }
  if (summary.deferred > 0) {
    print(
      `${records(summary.deferred)} reference images or records that this load creates before them; a dry run cannot check those references (no image is uploaded, every batch is rolled back).`
    )
  }
  if (summary.statePath !== undefined) print(`State of this load: ${summary.statePath}`)
  if (summary.rateLimited > 0)
    print(
      `${summary.rateLimited} requests met 429 (other clients of the connection or company?); each was retried after its Retry-After.`
    )
  if (summary.reportPath === undefined)
    print(`${summary.dryRun ? "No failures" : "Every record was loaded"}; no failure report was written.`)
  else {
    print(
      `${records(summary.failed)} failed; the report lists each with its line, code and message: ${summary.reportPath}`
    )
    if (!summary.dryRun) print("Fix the input, then run the same command with --retry-failed to re-send only those.")
    if (summary.dryRun) {
      const lines = readFileSync(summary.reportPath, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .slice(0, 20)
      for (const line of lines) {
        const f = JSON.parse(line) as { file: string; line: number; code: string; message: string; path: string | null }
        print(`  ${f.file}:${f.line} ${f.code}${f.path === null ? "" : ` at ${f.path}`}: ${f.message}`)
      }
    }
  }
}

const program = Effect.gen(function* () {
  const parsed = yield* Effect.try({ try: () => parse(process.argv.slice(2)), catch: (error) => error })
  if (parsed === "help") return yield* Effect.sync(() => print(usage))
  const { options, json } = parsed
  const live = !json && process.stderr.isTTY === true ? bars() : undefined
  const plain = plainProgress()
  const onProgress = (snapshot: Snapshot) => {
    if (json) print(JSON.stringify({ event: "progress", ...snapshot }))
    else if (live !== undefined) live.render(snapshot)
    else for (const line of plain(snapshot)) process.stderr.write(`${line}\n`)
  }
  const summary = yield* load({ ...options, onProgress }).pipe(
    Effect.ensuring(Effect.sync(() => live?.stop())),
    Effect.onInterrupt(() =>
      Effect.sync(() => process.stderr.write("\nStopped. Run the same command again to continue where it stopped.\n"))
    )
  )
  if (json) print(JSON.stringify({ event: "summary", ...summary }))
  else printSummary(summary)
  process.exitCode = summary.failed === 0 ? 0 : 1
}).pipe(
  Effect.catchCause((cause) =>
    Effect.sync(() => {
      const failure = Cause.findErrorOption(cause)
      const error = Option.isSome(failure) ? failure.value : Cause.squash(cause)
      const message =
        error instanceof UsageError
          ? `${error.message}\n\n${usage}`
          : ((error as { message?: string })?.message ?? String(error))
      process.stderr.write(`catalog-sync-load: ${message}\n`)
      process.exitCode = 2
    })
  ),
  Effect.provide(NodeFileSystem.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    onExit(
      typeof process.exitCode === "number"
        ? process.exitCode
        : Exit.isSuccess(exit)
          ? 0
          : Cause.hasInterruptsOnly(exit.cause)
            ? 130
            : 2
    )
})
