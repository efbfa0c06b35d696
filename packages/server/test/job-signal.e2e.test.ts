import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { jobOf, str } from "./Json.js"
import { call, freshKey, TestServer, TestServerWith, uploadMedia } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write", "media:read", "media:write"]

/** How long a queued job waited for the worker, from the 202 to the job's end. */
const timeToEnd = (url: string, token: string, id: string) =>
  Effect.gen(function* () {
    const started = Date.now()
    // Up to 10 s (the poll is 20 s), at most ~100 reads: under the key's rate limit.
    while (Date.now() - started < 10_000) {
      const reply = yield* call(url, "GET", `/jobs/${id}`, { token })
      expect(reply.status).toBe(200)
      const state = str(reply.body, "job", "state")
      if (state === "completed" || state === "failed") return { state, millis: Date.now() - started }
      yield* Effect.sleep("100 millis")
    }
    return { state: "still waiting", millis: Date.now() - started }
  })

// Workers that poll only every 20 s: a job must still start at once, woken by the request that queued it.
layer(TestServerWith({}, { JOB_POLL_MILLISECONDS: "20000" }), { excludeTestServices: true, timeout: 60_000 })(
  "queued jobs wake the worker",
  (it) => {
    it.effect("an import, its retry and a media upload are taken up at once, not at the next poll", () =>
      Effect.gen(function* () {
        const { url, tenant } = yield* TestServer
        const token = yield* (yield* tenant()).key(scopes)
        // Let the worker's first poll (at start) pass, so that it sleeps.
        yield* Effect.sleep("200 millis")
        const submitted = yield* call(url, "POST", "/imports", {
          token,
          body: {
            records: [
              { resource: "products", body: { external_id: "p", name: "P", category_ids: [{ external_id: "later" }] } }
            ]
          }
        })
        const failed = yield* timeToEnd(url, token, str(submitted.body, "job", "id"))
        // It completes with its one record failed (spec 3); the retry below re-runs that record.
        expect(failed.state).toBe("completed")
        expect(failed.millis).toBeLessThan(5_000)

        yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "later", name: "Later" } })
        const retried = yield* call(url, "POST", `/jobs/${str(submitted.body, "job", "id")}/retry`, {
          token,
          idempotencyKey: freshKey()
        })
        expect(retried.status).toBe(202)
        const completed = yield* timeToEnd(url, token, str(submitted.body, "job", "id"))
        expect(completed).toMatchObject({ state: "completed" })
        expect(completed.millis).toBeLessThan(5_000)

        const png = yield* Effect.promise(() =>
          sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
            .png()
            .toBuffer()
        )
        const uploaded = yield* uploadMedia(url, token, { external_id: "m", name: "M", purpose: "catalog" }, png)
        const processed = yield* timeToEnd(url, token, jobOf(uploaded.body).id)
        expect(processed).toMatchObject({ state: "completed" })
        expect(processed.millis).toBeLessThan(5_000)
      })
    )
  }
)
