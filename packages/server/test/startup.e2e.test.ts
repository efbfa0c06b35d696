import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { buildServer, freePort, startInstance } from "./Instances.js"
import { testDatabase } from "./TestServer.js"

class Bundle extends Context.Service<Bundle, string>()("Bundle") {}

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-startup-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `command` until it exits by itself (start-up failures) or `until` sees its output, then `stop`s it. */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: {
    readonly cwd?: string
    readonly until?: (output: string) => boolean
    readonly stop?: (pid: number) => void
    readonly group?: boolean
  } = {}
) =>
  Effect.callback<Run>((resume) => {
    // In a process group of its own (`group`), so that whatever it leaves running can be stopped after the test.
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.group === true
    })
    const leftovers = () => {
      if (options.group === true) {
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          // the group is gone: nothing was left running
        }
      }
    }
    let stdout = ""
    let stderr = ""
    let stopped = false
    const check = () => {
      if (!stopped && options.until?.(stdout + stderr) === true) {
        stopped = true
        options.stop?.(child.pid!)
      }
    }
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      check()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      check()
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      // A moment for a server the signal did not reach to answer the test's probe, then the group goes.
      setTimeout(leftovers, 3_000).unref()
      resume(Effect.succeed({ code, signal, stdout, stderr }))
    })
    return Effect.sync(() => {
      child.kill("SIGKILL")
      leftovers()
    })
  })

const serve = (bundle: string, env: Record<string, string>) =>
  run(process.execPath, [join(bundle, "cli.js"), "serve"], env)

/** The JSON error the server prints on stderr when it cannot start. */
const startError = (result: Run): { code: string; message: string; details?: { variable?: string } } => {
  expect(result.code, `exit code; stderr: ${result.stderr}`).toBe(1)
  const json = result.stderr.slice(result.stderr.indexOf('{\n  "error"'))
  return JSON.parse(json).error
}

const logLines = (output: string): Array<{ message: string; annotations: Record<string, unknown> }> =>
  output
    .split("\n")
    .filter((line) => line.startsWith('{"message"'))
    .map((line) => JSON.parse(line))

const closedPort = freePort

const withPassword = (raw: string, password: string) => {
  const url = new URL(raw)
  url.password = password
  return url.toString()
}

layer(Layer.effect(Bundle, buildServer), { timeout: 120_000 })("start-up", (it) => {
  describe("a start that fails names its cause and the setting to change", () => {
    it.effect("the port is taken", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const port = yield* freePort
        const holder = createServer()
        yield* Effect.acquireRelease(
          Effect.callback<void>((resume) => void holder.listen(port, "127.0.0.1", () => resume(Effect.void))),
          () => Effect.sync(() => holder.close())
        )
        const error = startError(yield* serve(bundle, { DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1" }))
        expect(error).toMatchObject({ code: "port_in_use", details: { variable: "PORT" } })
        expect(error.message).toContain(`port ${port}`)
        expect(error.message).toContain("set PORT")
      })
    )

    it.effect("HOST is not an address of this machine", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        // 192.0.2.1 is a documentation address (TEST-NET-1): never assigned to this machine, so binding fails locally.
        const error = startError(
          yield* serve(bundle, { DATA_DIR: dir, PORT: String(yield* freePort), HOST: "192.0.2.1" })
        )
        expect(error).toMatchObject({ code: "host_invalid", details: { variable: "HOST" } })
        expect(error.message).toContain("HOST=192.0.2.1")
      })
    )

    it.effect("DATA_DIR cannot hold the database and media", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const file = join(dir, "a-file")
        writeFileSync(file, "not a folder")
        const error = startError(yield* serve(bundle, { DATA_DIR: file, PORT: String(yield* freePort) }))
        expect(error).toMatchObject({ code: "data_dir_unusable", details: { variable: "DATA_DIR" } })
        expect(error.message).toContain(file)
        expect(error.message).toContain("set DATA_DIR")
      })
    )

    it.effect("the PostgreSQL server does not answer; the password is never printed", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const dbPort = yield* closedPort
        const result = yield* serve(bundle, {
          DATA_DIR: dir,
          PORT: String(yield* freePort),
          DATABASE_URL: `postgres://app:pa55word@127.0.0.1:${dbPort}/catalog`
        })
        const error = startError(result)
        expect(error).toMatchObject({ code: "database_unreachable", details: { variable: "DATABASE_URL" } })
        expect(error.message).toContain(`127.0.0.1:${dbPort}/catalog`)
        expect(error.message).toContain("ECONNREFUSED")
        expect(result.stdout + result.stderr).not.toContain("pa55word")
      })
    )

    const configErrors: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ PORT: "abc" }, "PORT=abc must be a whole number from 1 to 65535"],
      [{ PORT: "70000" }, "PORT=70000 must be a whole number from 1 to 65535"],
      [{ JOB_WORKERS: "-1" }, "JOB_WORKERS=-1 must be a whole number from 0 up"],
      [{ JOB_LEASE_SECONDS: "0" }, "JOB_LEASE_SECONDS=0 must be a number of seconds >= 1"],
      [{ LOG_LEVEL: "loud" }, "LOG_LEVEL=loud must be one of debug, info, warning, warn, error, none"],
      [
        { DATABASE_URL: "not a url" },
        "DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/database (unset it to use SQLite)"
      ],
      [
        { DATABASE_URL: "mysql://root:secret@localhost/shop" },
        "DATABASE_URL is a mysql:// URL; only PostgreSQL is supported"
      ],
      [{ MEDIA_STORAGE: "gcs" }, "MEDIA_STORAGE=gcs must be fs or s3"]
    ]
    it.effect.each(configErrors)("config %o", ([env, message]) =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const result = yield* serve(bundle, { DATA_DIR: dir, PORT: String(yield* freePort), ...env })
        const error = startError(result)
        expect(error.code).toBe("config_invalid")
        expect(error.message).toContain(message)
        expect(result.stderr).not.toContain("secret")
      })
    )
  })

  it.effect("the admin CLI answers bad input with a JSON error on stderr and exit code 1, and nothing on stdout", () =>
    Effect.gen(function* () {
      const bundle = yield* Bundle
      const dir = yield* tempDir
      const cli = (args: ReadonlyArray<string>) =>
        run(process.execPath, [join(bundle, "cli.js"), ...args], { DATA_DIR: dir })
      for (const [args, message] of [
        [["company", "create", "--nmae", "Acme"], "The flag '--nmae' is not recognized. Did you mean '--name'?"],
        [["company"], "company needs a command: company create,"],
        [
          ["connection", "list", "--company", "not-a-uuid"],
          '--company must be a uuid (as printed by the command that created it), not "not-a-uuid"'
        ]
      ] as const) {
        const result = yield* cli(args)
        expect(result.code).toBe(1)
        expect(result.stdout).toBe("")
        expect(JSON.parse(result.stderr).error).toMatchObject({
          code: "usage",
          message: expect.stringContaining(message)
        })
      }
      const listed = yield* cli(["company", "list"])
      expect(listed.code).toBe(0)
      expect(JSON.parse(listed.stdout)).toEqual([])
      // effect/cli 4's layout: a group's help lists its commands by name, each command's help its synopsis.
      const help = yield* cli(["company", "--help"])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain("  grant\n      grant scopes to a company")
      const grant = yield* cli(["company", "grant", "--help"])
      expect(grant.code).toBe(0)
      expect(grant.stdout).toContain("catalog-sync company grant [flags] <company-id>")
      expect(grant.stdout).toContain("--scopes scope,...")
    })
  )

  it.effect("logs what runs when it starts, and the start and end of shutdown on SIGTERM", () =>
    Effect.gen(function* () {
      const bundle = yield* Bundle
      const dir = yield* tempDir
      const port = yield* freePort
      // On PostgreSQL the URL carries a password (the test cluster trusts loopback, so it is not checked) that must not be logged.
      const database =
        testDatabase === "postgres" ? { DATABASE_URL: withPassword(yield* PgTesting.freshDatabase, "pa55word") } : {}
      const result = yield* run(
        process.execPath,
        [join(bundle, "cli.js"), "serve"],
        { DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1", JOB_WORKERS: "2", ...database },
        {
          until: (output) => output.includes("catalog-sync is running"),
          stop: (pid) => process.kill(pid, "SIGTERM")
        }
      )
      expect(result.code, result.stdout + result.stderr).toBe(0)
      const lines = logLines(result.stdout)
      const started = lines.find((line) => line.message === "catalog-sync is running")
      expect(started?.annotations).toMatchObject({
        url: `http://127.0.0.1:${port}`,
        docs: `http://127.0.0.1:${port}/docs`,
        panel: `http://127.0.0.1:${port}/panel`,
        media_storage: `fs ${join(dir, "media")}`,
        job_workers: 2,
        metrics: "off",
        tracing: "off"
      })
      expect(String(started?.annotations.database)).toMatch(
        testDatabase === "postgres" ? /^postgresql 127\.0\.0\.1:\d+\/\w+/ : /^sqlite .*catalog-sync\.db$/
      )
      const messages = lines.map((line) => line.message)
      expect(messages.indexOf("shutting down")).toBeGreaterThan(messages.indexOf("catalog-sync is running"))
      expect(messages.at(-1)).toBe("stopped")
      expect(result.stdout + result.stderr).not.toContain("pa55word")
    })
  )
})

const repository = fileURLToPath(new URL("../../..", import.meta.url))

it.effect(
  "kill -TERM of `npm start` stops the server: the signal reaches it",
  () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const port = yield* freePort
      const result = yield* run(
        "npm",
        ["start"],
        { DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1" },
        {
          cwd: repository,
          group: true,
          until: (output) => output.includes("catalog-sync is running"),
          stop: (pid) => process.kill(pid, "SIGTERM")
        }
      )
      expect(result.stdout).toContain("shutting down")
      expect(result.stdout).toContain('"message":"stopped"')
      const refused = yield* Effect.result(Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`)))
      expect(refused._tag).toBe("Failure")
    }),
  120_000
)

/** The shell blocks of the quickstart's curl walkthrough (its key, then the calls), as a reader copies them. */
const firstCallSnippet = () => {
  const guide = readFileSync(join(repository, "docs", "quickstart.md"), "utf8")
  const section = guide.slice(
    guide.indexOf("## A server and a key"),
    guide.indexOf("## The same with the typed client")
  )
  return Array.from(section.matchAll(/```sh\n([\s\S]*?)```/g), (match) => match[1]!).join("\n")
}

it.live(
  "the quickstart's curl walkthrough works copy-pasted: the key, then the calls",
  () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const bundle = yield* buildServer
      const server = yield* startInstance(bundle, { DATA_DIR: dir })
      const port = new URL(server.url).port
      const snippet = firstCallSnippet()
      expect(snippet).toContain("quickstart")
      const result = yield* run(
        "bash",
        ["-c", snippet],
        { DATA_DIR: dir, PORT: port, HOST: "127.0.0.1", LOG_LEVEL: "warning" },
        { cwd: repository }
      )
      expect(result.code, result.stderr).toBe(0)
      const answers = result.stdout
        .split(/(?<=\})(?=\{)|\n/)
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line))
      expect(answers[0]).toMatchObject({
        principal: { company: { currency: "EUR" }, scopes: expect.arrayContaining(["catalog:write", "stock:write"]) }
      })
      const outcomes = answers
        .slice(1)
        .map((answer) => answer.outcome ?? answer.error?.code ?? (answer.records === undefined ? "?" : "list"))
      expect(outcomes).toEqual(["created", "created", "updated", "revision_conflict", "list", "updated"])
      expect(answers.at(-1)).toMatchObject({ record: { external_id: "p1", state: "archived", revision: 3 } })
    }),
  180_000
)
