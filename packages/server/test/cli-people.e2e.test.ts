/**
 * The bundled CLI as an operator runs it: the first administrator made with the password piped to
 * standard input, a command without one refused (standard input is no terminal here), and the audit log
 * naming the operating-system user who ran the commands.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { buildServer } from "./Instances.js"

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the bundled CLI with `input` on its standard input (a pipe, never a terminal). */
const cli = (bundle: string, dataDir: string, args: ReadonlyArray<string>, input = "") =>
  Effect.callback<Ran>((resume) => {
    const child = execFile(
      process.execPath,
      [join(bundle, "cli.js"), ...args],
      { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" } },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : (error.code as number), stdout, stderr }))
    )
    child.stdin?.end(input)
  })

describe("catalog-sync user and audit, bundled", () => {
  it.live(
    "makes an administrator from a piped password, refuses one without, and audits as cli:<os user>",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const bundle = yield* buildServer
          const dataDir = mkdtempSync(join(tmpdir(), "catalog-sync-cli-people-e2e-"))
          const made = yield* cli(
            bundle,
            dataDir,
            ["user", "create", "--admin", "--email", "root@example.com", "--name", "Root", "--password-stdin"],
            "a long enough password\n"
          )
          expect(made.code, made.stderr).toBe(0)
          expect(JSON.parse(made.stdout)).toMatchObject({ email: "root@example.com", role: "admin", enabled: true })
          expect(made.stdout).not.toContain("a long enough password")

          const refused = yield* cli(bundle, dataDir, [
            "user",
            "create",
            "--admin",
            "--email",
            "x@example.com",
            "--name",
            "X"
          ])
          expect(refused.code).toBe(1)
          expect(JSON.parse(refused.stderr)).toMatchObject({
            error: { code: "usage", message: expect.stringContaining("--password-stdin") }
          })

          const listed = yield* cli(bundle, dataDir, ["user", "list"])
          expect((JSON.parse(listed.stdout) as ReadonlyArray<{ email: string }>).map((u) => u.email)).toEqual([
            "root@example.com"
          ])
          const audit = yield* cli(bundle, dataDir, ["audit", "list"])
          expect(JSON.parse(audit.stdout)).toEqual([
            expect.objectContaining({ action: "user.create", actor: `cli:${userInfo().username}`, company_id: null })
          ])
        })
      ),
    180_000
  )
})
