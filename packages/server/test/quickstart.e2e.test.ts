/**
 * `catalog-sync quickstart` finds the server running on its data folder, whatever port it listens on: the
 * server records its URL in the data folder while it runs, the CLI uses it once GET /health answers there,
 * and says in one `#` line on stderr when nothing answers at the URL it prints.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildServer, freePort } from "./Instances.js"

class Bundle extends Context.Service<Bundle, string>()("Bundle") {}

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-quickstart-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** The environment of a reader's shell, without any setting that would point the CLI elsewhere. */
const baseEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name, value]) =>
        value !== undefined && !/^(PORT|HOST|DATA_DIR|DATABASE_URL|SQLITE_FILE|MEDIA_|S3_|CATALOG_SYNC_)/.test(name)
    )
  ) as Record<string, string>

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("exit", () => resolve())
  })

/**
 * `cli.js serve` on a free port (PORT=0 is refused) and the given data folder; succeeds with the URL of
 * its start-up line. Killed with SIGKILL when the scope closes, unless stopped before.
 */
const serve = (bundle: string, dataDir: string) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [join(bundle, "cli.js"), "serve"], {
          env: {
            ...baseEnv(),
            DATA_DIR: dataDir,
            HOST: "127.0.0.1",
            PORT: String(port),
            LOG_LEVEL: "info",
            SHUTDOWN_TIMEOUT_SECONDS: "1"
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) =>
        Effect.promise(async () => {
          child.kill("SIGKILL")
          await exited(child)
        })
    )
    const url = yield* Effect.callback<string, Error>((resume) => {
      let output = ""
      const timer = setTimeout(() => resume(Effect.fail(new Error(`no start-up line in 60 s:\n${output}`))), 60_000)
      const read = (chunk: Buffer) => {
        output += chunk.toString()
        const line = output.split("\n").find((l) => l.includes('"catalog-sync is running"'))
        if (line !== undefined) {
          clearTimeout(timer)
          resume(Effect.succeed(JSON.parse(line).annotations.url as string))
        }
      }
      child.stdout!.on("data", read)
      child.stderr!.on("data", read)
      child.once("exit", (code) => resume(Effect.fail(new Error(`exited with ${code}:\n${output}`))))
    })
    const stop = (signal: NodeJS.Signals) =>
      Effect.promise(async () => {
        child.kill(signal)
        await exited(child)
      })
    return { url, stop }
  })

interface Shell {
  readonly url: string
  readonly key: string
  readonly stderr: string
}

/**
 * `eval "$(catalog-sync quickstart)"` in bash as the README has it, on `dataDir`, then the variables it set.
 * PORT names a port nothing listens on: the settings alone would give a URL that does not answer.
 */
const quickstart = (bundle: string, dataDir: string, port: number, args = "") =>
  Effect.callback<Shell, Error>((resume) => {
    const script = `eval "$("$0" "$1" quickstart ${args})" && printf '%s\\n%s\\n' "$CATALOG_SYNC_URL" "$CATALOG_SYNC_KEY"`
    execFile(
      "bash",
      ["-c", script, process.execPath, join(bundle, "cli.js")],
      { env: { ...baseEnv(), DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: String(port) } },
      (error, stdout, stderr) => {
        if (error !== null) return resume(Effect.fail(new Error(`quickstart failed: ${error.message}\n${stderr}`)))
        const [url = "", key = ""] = stdout.split("\n")
        resume(Effect.succeed({ url, key, stderr }))
      }
    )
  })

const me = (shell: Shell) =>
  Effect.promise(async () => {
    const response = await fetch(`${shell.url}/api/v1/me`, { headers: { Authorization: `Bearer ${shell.key}` } })
    return { status: response.status, body: await response.json() }
  })

const notice = (stderr: string) => stderr.split("\n").filter((line) => line.includes("Nothing answers"))

layer(Layer.effect(Bundle, buildServer), { timeout: 120_000 })("quickstart finds its server", (it) => {
  describe("without --url", () => {
    it.effect("prints the URL the server on its data folder listens on, which answers /me with the key", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const server = yield* serve(bundle, dir)
        const unused = yield* freePort
        expect(new URL(server.url).port).not.toBe(String(unused))

        const shell = yield* quickstart(bundle, dir, unused)
        expect(shell.url).toBe(server.url)
        expect(shell.key).toMatch(/^csk_/)
        const answer = yield* me(shell)
        expect(answer.status).toBe(200)
        expect(answer.body).toMatchObject({ principal: { scopes: expect.arrayContaining(["catalog:write"]) } })
        expect(notice(shell.stderr)).toEqual([])
        expect(shell.stderr).not.toContain("npm start")
        expect(shell.stderr).toContain(`# The server answers at ${server.url}.`)

        // --url wins over the recorded URL.
        const given = yield* quickstart(bundle, dir, unused, `--url http://127.0.0.1:${unused}`)
        expect(given.url).toBe(`http://127.0.0.1:${unused}`)
        expect(notice(given.stderr)).toHaveLength(1)
      })
    )

    it.effect("says in one # line that nothing answers when no server runs", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const unused = yield* freePort
        const shell = yield* quickstart(bundle, dir, unused)
        expect(shell.url).toBe(`http://127.0.0.1:${unused}`)
        expect(notice(shell.stderr)).toEqual([
          `# Nothing answers at http://127.0.0.1:${unused}: start the server (npm start), or give its URL with --url.`
        ])
        expect(shell.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("# "))).toEqual([])
      })
    )

    it.effect("says in one # line when the server at the URL is another one, whose database has no such key", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const other = yield* serve(bundle, yield* tempDir)
        const shell = yield* quickstart(bundle, yield* tempDir, Number(new URL(other.url).port))
        expect(shell.url).toBe(other.url)
        expect((yield* me(shell)).status).toBe(401)
        const lines = shell.stderr.split("\n").filter((line) => line.includes("refuses this key"))
        expect(lines).toEqual([
          `# The server at ${other.url} refuses this key (GET /api/v1/me: 401): it is not the one on this data folder and database; start that one (npm start), or give its URL with --url.`
        ])
      })
    )

    it.effect("is not misled by the file a killed server left; a clean stop removes it", () =>
      Effect.gen(function* () {
        const bundle = yield* Bundle
        const dir = yield* tempDir
        const file = join(dir, "server-url")
        const killed = yield* serve(bundle, dir)
        expect(existsSync(file)).toBe(true)
        yield* killed.stop("SIGKILL")
        expect(existsSync(file)).toBe(true)

        const unused = yield* freePort
        const shell = yield* quickstart(bundle, dir, unused)
        expect(shell.url).toBe(`http://127.0.0.1:${unused}`)
        expect(notice(shell.stderr)).toHaveLength(1)

        const stopped = yield* serve(bundle, dir)
        yield* stopped.stop("SIGTERM")
        expect(existsSync(file)).toBe(false)
      })
    )
  })
})
