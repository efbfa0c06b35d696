/**
 * A new user's password, never from the command line (argv is visible to every user of the machine in
 * the process list and often kept in shell history): read from standard input with `--password-stdin`,
 * or asked for twice, without echo, when standard input is a terminal.
 */
import { Effect, Stdio, Stream } from "effect"
import { UsageError } from "./Action.js"

const command = "user create"

/** Standard input up to its end, less one final line break (what `echo` or a here-string adds). */
export const fromStdin: Effect.Effect<string, UsageError, Stdio.Stdio> = Effect.gen(function* () {
  const stdio = yield* Stdio.Stdio
  const text = yield* stdio.stdin.pipe(Stream.decodeText(), Stream.mkString)
  return text.replace(/\r?\n$/, "")
}).pipe(
  Effect.catchTag("PlatformError", (error) =>
    Effect.fail(new UsageError({ command, message: `cannot read the password from standard input: ${error.message}` }))
  )
)

/** Asks on stderr (stdout is the command's JSON) and reads one line from the terminal without echoing it. */
const askHidden = (question: string) =>
  Effect.callback<string, UsageError>((resume) => {
    const input = process.stdin
    let typed = ""
    const finish = (outcome: Effect.Effect<string, UsageError>) => {
      input.off("data", onData)
      input.setRawMode(false)
      input.pause()
      process.stderr.write("\n")
      resume(outcome)
    }
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === "\r" || character === "\n") return finish(Effect.succeed(typed))
        if (character === "\u0003" || character === "\u0004")
          return finish(Effect.fail(new UsageError({ command, message: "no password given" })))
        typed = character === "\u007f" || character === "\b" ? typed.slice(0, -1) : typed + character
      }
    }
    process.stderr.write(question)
    input.setRawMode(true)
    input.setEncoding("utf8")
    input.on("data", onData)
    input.resume()
  })

/** Asked twice, so that a typing mistake is caught before it becomes the only way in. */
const prompted = Effect.gen(function* () {
  const first = yield* askHidden("Password (12 characters or more): ")
  const again = yield* askHidden("The same password again: ")
  if (first !== again) return yield* new UsageError({ command, message: "the two passwords differ" })
  return first
})

/** The password: from standard input when asked to, else from the terminal, else a usage error. */
export const read = (passwordStdin: boolean): Effect.Effect<string, UsageError, Stdio.Stdio> =>
  passwordStdin
    ? fromStdin
    : Effect.flatMap(Stdio.Stdio, (stdio) => stdio.stdinIsTerminal).pipe(
        Effect.flatMap((terminal) =>
          terminal
            ? prompted
            : Effect.fail(
                new UsageError({
                  command,
                  message:
                    "no password: pipe it to standard input with --password-stdin, or run in a terminal to be asked for it"
                })
              )
        )
      )
