import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Data, Effect, Schedule } from "effect"

/** An instance did not build, start or answer; the message carries its output. */
export class InstanceError extends Data.TaggedError("InstanceError")<{ readonly message: string }> {}

const serverDir = fileURLToPath(new URL("..", import.meta.url))

/**
 * The server bundled as `npm start` bundles it (tsup with the package's config), into a folder of its own
 * under packages/server/build so that a concurrent `npm start` or test run cannot clean it away; removed
 * with the scope. Inside the package, so that the bundle finds node_modules.
 */
export const buildServer = Effect.acquireRelease(
  Effect.callback<string, InstanceError>((resume) => {
    const outDir = join(serverDir, "build", `e2e-${process.pid}-${Date.now()}`)
    const child = execFile(
      join(serverDir, "..", "..", "node_modules", ".bin", "tsup"),
      ["--out-dir", outDir],
      { cwd: serverDir, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error)
          resume(Effect.fail(new InstanceError({ message: `tsup failed: ${error.message}\n${stdout}${stderr}` })))
        else resume(Effect.succeed(outDir))
      }
    )
    return Effect.sync(() => child.kill())
  }),
  (outDir) => Effect.sync(() => rmSync(outDir, { recursive: true, force: true }))
)

export const freePort = Effect.callback<number, InstanceError>((resume) => {
  const server = createServer()
  server.once("error", (error) => resume(Effect.fail(new InstanceError({ message: `no free port: ${error.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("exit", () => resolve())
  })

/** Succeeds once GET /ready is 200; fails with the process's output if it exits or takes over 30 s. */
const ready = (url: string, child: ChildProcess, output: () => string) =>
  Effect.tryPromise({
    try: async () => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`)
      const response = await fetch(`${url}/ready`)
      if (response.status !== 200) throw new Error(`GET /ready answered ${response.status}`)
    },
    catch: (cause) => new InstanceError({ message: String(cause) })
  }).pipe(
    Effect.retry({ schedule: Schedule.spaced("50 millis"), until: () => child.exitCode !== null, times: 600 }),
    Effect.mapError(
      (error) =>
        new InstanceError({
          message: `the instance at ${url} did not become ready (${error.message}); its output:\n${output()}`
        })
    )
  )

/**
 * `node <bundle>/cli.js serve` on a free loopback port with the given environment, ready (GET /ready is
 * 200) when this succeeds; stopped with SIGTERM (SIGKILL after 5 s) when the scope closes.
 */
export const startInstance = (bundle: string, env: Record<string, string>) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const dataDir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-instance-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    let output = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const started = spawn(process.execPath, [join(bundle, "cli.js"), "serve"], {
          env: {
            ...process.env,
            PORT: String(port),
            HOST: "127.0.0.1",
            DATA_DIR: dataDir,
            LOG_LEVEL: "warning",
            SHUTDOWN_TIMEOUT_SECONDS: "1",
            ...env
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
        started.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()))
        started.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()))
        return started
      }),
      (started) =>
        Effect.promise(async () => {
          started.kill("SIGTERM")
          const timer = setTimeout(() => started.kill("SIGKILL"), 5_000)
          await exited(started)
          clearTimeout(timer)
        })
    )
    const url = `http://127.0.0.1:${port}`
    yield* ready(url, child, () => output)
    return { url, output: () => output, dataDir }
  })

/** Runs the admin CLI of the bundle with the given environment and returns its JSON output (read through ./Json.ts). */
export const runCli = (bundle: string, env: Record<string, string>, args: ReadonlyArray<string>) =>
  Effect.callback<unknown, InstanceError>((resume) => {
    execFile(
      process.execPath,
      [join(bundle, "cli.js"), ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) resume(Effect.fail(new InstanceError({ message: `cli ${args.join(" ")} failed: ${stderr}` })))
        else resume(Effect.succeed(JSON.parse(stdout) as unknown))
      }
    )
  })

/**
 * A server process that can be killed (SIGKILL: no shutdown, as a crash) and started again on the same
 * port and data, so that clients keep one URL across crashes. Killed when the scope closes.
 */
export const crashableInstance = (bundle: string, env: Record<string, string>) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const url = `http://127.0.0.1:${port}`
    let child: ChildProcess | undefined
    let output = ""
    const kill = Effect.promise(async () => {
      const running = child
      if (running === undefined) return
      running.kill("SIGKILL")
      await exited(running)
    })
    yield* Effect.addFinalizer(() => kill)
    const start = Effect.gen(function* () {
      yield* kill
      output = ""
      const started = spawn(process.execPath, [join(bundle, "cli.js"), "serve"], {
        env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warning", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      started.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()))
      started.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()))
      child = started
      yield* ready(url, started, () => output)
    })
    return { url, start, kill, output: () => output }
  })
