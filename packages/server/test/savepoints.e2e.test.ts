import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { statementLog } from "./StatementLog.js"
import { stockTenant, stockWrite } from "./StockTenant.js"
import { at, str } from "./Json.js"
import { call, TestServerWith, testDatabase, uploadMedia, waitJob } from "./TestServer.js"

const log = statementLog(testDatabase)

const savepoints = (statements: ReadonlyArray<{ readonly text: string }>) =>
  statements.filter((s) => s.text.startsWith("SAVEPOINT")).length

const png = Effect.promise(
  async () =>
    new Uint8Array(
      await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 10, g: 120, b: 200 } } })
        .png()
        .toBuffer()
    )
)

/**
 * A write nested in the idempotent write's transaction joins it: its failure fails the request anyway.
 * Savepoints remain where a failure is caught and the work goes on: a dry run, whose writes roll back
 * under its stored answer, and each batch it applies set-based (rolled back when a record fails after
 * writing, to be applied again with one savepoint per record).
 */
layer(TestServerWith({ sql: log.wrap }, { JOB_POLL_MILLISECONDS: "600000" }), {
  excludeTestServices: true,
  timeout: 120_000
})(`savepoints on ${testDatabase}`, (it) => {
  it.effect("stock writes, uploads, imports and job retries open none; a dry run one, and one per batch", () =>
    Effect.gen(function* () {
      const t = yield* stockTenant()
      const token = yield* t.key(["catalog:read", "catalog:write", "media:read", "media:write", "stock:write"])
      const records = (prefix: string) => [
        {
          resource: "products",
          body: { external_id: `${prefix}-kept`, name: "Kept", category_ids: [{ external_id: "c" }] }
        },
        // No name: refused when created (missing_required_field), after its body decoded.
        { resource: "products", body: { external_id: `${prefix}-nameless`, category_ids: [{ external_id: "c" }] } }
      ]

      const stock = yield* log.untilQuiet(
        call(t.url, "POST", "/inventory", { token, body: stockWrite({ location_id: t.writable }) })
      )
      expect(stock.answer.status).toBe(200)
      const upload = yield* log.untilQuiet(
        uploadMedia(t.url, token, { external_id: "m", name: "M", purpose: "catalog" }, yield* png)
      )
      expect(upload.answer.status).toBe(202)
      const imported = yield* log.untilQuiet(
        call(t.url, "POST", "/imports", { token, body: { records: records("job") } })
      )
      const job = yield* waitJob(t.url, token, str(imported.answer.body, "job", "id"))
      expect(job).toMatchObject({ state: "completed", counts: { created: 1, failed: 1 } })
      const retried = yield* log.untilQuiet(call(t.url, "POST", `/jobs/${job.id}/retry`, { token }))
      expect(retried.answer.status).toBe(202)
      const dryRun = yield* log.untilQuiet(
        call(t.url, "POST", "/imports", { token, body: { dry_run: true, records: records("dry") } })
      )
      expect(at(dryRun.answer.body, "report")).toMatchObject({ dry_run: true, failed: 1 })

      expect({
        stock: savepoints(stock.statements),
        upload: savepoints(upload.statements),
        imported: savepoints(imported.statements),
        retried: savepoints(retried.statements),
        dryRun: savepoints(dryRun.statements)
      }).toEqual({ stock: 0, upload: 0, imported: 0, retried: 0, dryRun: 2 })
    })
  )
})
