import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit, Logger } from "effect"
import { loggingChanges } from "../src/Readiness.js"

class DatabaseDown extends Data.TaggedError("DatabaseDown")<{ readonly message: string }> {}

describe("readiness", () => {
  it.effect(
    "logs when the database stops answering (with the cause) and when it answers again, once each, not per probe",
    () =>
      Effect.gen(function* () {
        const lines: Array<string> = []
        const capture = Logger.layer([
          Logger.make(({ message }) => lines.push(String(Array.isArray(message) ? message[0] : message)))
        ])
        let up = true
        const probe = yield* loggingChanges(
          Effect.suspend(() =>
            up ? Effect.void : Effect.fail(new DatabaseDown({ message: "connect ECONNREFUSED 127.0.0.1:5432" }))
          )
        )
        const ask = Effect.exit(probe).pipe(Effect.provide(capture))
        for (let i = 0; i < 3; i++) expect(Exit.isSuccess(yield* ask)).toBe(true)
        expect(lines).toEqual([])
        up = false
        for (let i = 0; i < 5; i++) expect(Exit.isFailure(yield* ask)).toBe(true)
        expect(lines).toEqual([
          "the database does not answer; GET /ready answers 503 until it does: connect ECONNREFUSED 127.0.0.1:5432"
        ])
        up = true
        for (let i = 0; i < 5; i++) yield* ask
        expect(lines).toHaveLength(2)
        expect(lines[1]).toBe("the database answers again; GET /ready answers 200")
      })
  )
})
