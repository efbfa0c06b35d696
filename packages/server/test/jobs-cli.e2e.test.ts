import { expect, layer } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { NodePasswordHasher } from "@catalog-sync/adapter-http"
import { Admin, AuditLog, Ids, InventoryAdmin, JobAdmin, PeopleAdmin } from "@catalog-sync/core"
import { Effect, Layer } from "effect"
import { cliActor } from "../src/cli/CliActor.js"
import { parse } from "../src/cli/Commands.js"
import { status } from "../src/cli/Status.js"
import { MediaStorageLive, PersistenceLive } from "../src/Server.js"
import { at, str } from "./Json.js"
import { call, TestServer, TestServerLive, testDatabase, waitJob } from "./TestServer.js"

const scopes = ["catalog:read", "catalog:write"]

layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })(
  "the operator's jobs commands and status",
  (it) => {
    it.effect("list, show with the report, retry after the cause is fixed, and status", () =>
      Effect.gen(function* () {
        const { url, tenant, config } = yield* TestServer
        const operator = JobAdmin.JobAdmin.Default.pipe(
          Layer.provide(MediaStorageLive(config)),
          Layer.provideMerge(PersistenceLive(config)),
          Layer.provide(Ids.IdsLive)
        )
        // As the CLI runs them: its jobs commands as `cli:<os user>`, its admin commands over the admin services.
        const cli = (line: string) =>
          parse(line.split(" ")).pipe(
            Effect.provide(NodeServices.layer),
            Effect.flatMap((action) =>
              action._tag === "Jobs" ? action.run : Effect.die(`not a jobs command: ${line}`)
            ),
            Effect.provide(operator),
            Effect.provideService(AuditLog.Actor, cliActor())
          )
        const adminCli = (line: string) =>
          parse(line.split(" ")).pipe(
            Effect.provide(NodeServices.layer),
            Effect.flatMap((action) =>
              action._tag === "Admin" ? action.run : Effect.die(`not an admin command: ${line}`)
            ),
            Effect.provide(
              Layer.mergeAll(
                Admin.Admin.Default,
                InventoryAdmin.InventoryAdmin.Default,
                PeopleAdmin.PeopleAdmin.Default.pipe(Layer.provide(NodePasswordHasher.layer))
              ).pipe(
                Layer.provideMerge(PersistenceLive(config)),
                Layer.provide(Ids.IdsLive),
                Layer.merge(NodeServices.layer)
              )
            )
          )
        const t = yield* tenant()
        const token = yield* t.key(scopes)
        const submitted = yield* call(url, "POST", "/imports", {
          token,
          body: {
            records: [
              { resource: "categories", body: { external_id: "a", name: "A" } },
              { resource: "products", body: { external_id: "p", name: "P", category_ids: [{ external_id: "later" }] } }
            ]
          }
        })
        const id = str(submitted.body, "job", "id")
        expect(yield* waitJob(url, token, id)).toMatchObject({ state: "completed" })

        const listed = (yield* cli(
          `jobs list --company ${t.companyId} --kind import --state completed`
        )) as ReadonlyArray<{ id: string; company_id: string }>
        expect(listed.map((job) => job.id)).toEqual([id])
        expect(yield* cli(`jobs list --company ${t.companyId} --kind media`)).toEqual([])
        expect(yield* cli(`jobs list --company ${t.companyId} --state failed`)).toEqual([])

        const shown = yield* cli(`jobs show ${id}`)
        expect(shown).toMatchObject({
          id,
          company_id: t.companyId,
          connection_id: t.connectionId,
          kind: "import",
          state: "completed",
          run: 1
        })
        expect(at(shown, "report", "counts")).toMatchObject({ total: 2, created: 1, failed: 1 })
        expect(at(shown, "report", "failed_records")).toEqual([
          {
            index: 1,
            resource: "products",
            external_id: "p",
            error: expect.objectContaining({ code: expect.any(String) })
          }
        ])
        expect(yield* Effect.flip(cli("jobs show 00000000-0000-4000-8000-000000000000"))).toMatchObject({
          code: "not_found"
        })

        // The cause is fixed; the operator runs the failed record again, for the key that queued it.
        expect(
          (yield* call(url, "POST", "/categories/upsert", { token, body: { external_id: "later", name: "Later" } }))
            .status
        ).toBe(200)
        expect(yield* cli(`jobs retry ${id}`)).toMatchObject({ id, state: "queued", run: 2 })
        expect(yield* waitJob(url, token, id)).toMatchObject({ state: "completed" })
        const after = yield* cli(`jobs show ${id}`)
        expect(at(after, "report", "counts")).toMatchObject({ total: 2, created: 2, failed: 0 })
        expect(yield* Effect.flip(cli(`jobs retry ${id}`))).toMatchObject({ code: "job_not_retryable" })
        // The retry is in the audit log under the CLI's actor; the refused one is not.
        const audited = (yield* adminCli(`audit list --company ${t.companyId}`)) as ReadonlyArray<AuditLog.AuditEntry>
        expect(audited.filter((entry) => entry.action.startsWith("job."))).toEqual([
          expect.objectContaining({
            actor: cliActor().label,
            action: "job.retry",
            company_id: t.companyId,
            target: id,
            details: { kind: "import", connection_id: t.connectionId, run: "2", from_state: "completed" }
          })
        ])

        const overview = yield* status(config).pipe(Effect.provide(operator))
        expect(at(overview, "database", "engine")).toBe(testDatabase === "postgres" ? "postgresql" : "sqlite")
        expect(JSON.stringify(at(overview, "database"))).not.toMatch(/password|secret/i)
        expect(at(overview, "queue")).toEqual({
          queued: { import: 0, media: 0 },
          running: { import: 0, media: 0 },
          paused: { import: 0, media: 0 }
        })
        expect(at(overview, "oldest_queued")).toBeNull()
        expect(at(overview, "paused_media_companies")).toEqual([])
      })
    )
  }
)
