import { Admin, Ids } from "@catalog-sync/core"
import { it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import { mkdtempSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { PersistenceLive, ServerLive } from "../src/Server.js"
import type { ServerConfig } from "../src/ServerConfig.js"

it.live(
  "on shutdown a request in flight completes and new connections are refused",
  () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "catalog-sync-shutdown-"))
      const config: ServerConfig = {
        port: 0,
        host: "127.0.0.1",
        dataDir,
        databaseFile: Option.none(),
        shutdownTimeoutSeconds: 2,
        logLevel: "Warn"
      }
      const admin = Context.get(
        yield* Layer.build(
          Admin.Admin.Default.pipe(Layer.provide(PersistenceLive(config)), Layer.provide(Ids.IdsLive))
        ),
        Admin.Admin
      )
      const company = yield* admin.createCompany({
        name: "A",
        currency: "EUR",
        main_language: "en",
        storage_slug: "shutdown",
        granted_scopes: ["catalog:write", "catalog:read"]
      })
      const connection = yield* admin.createConnection(company.id, "ERP")
      const { token } = yield* admin.createKey({
        connection_id: connection.id,
        scopes: ["catalog:write"],
        lifetime_days: 1
      })

      const serverScope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(ServerLive(config), serverScope)
      const { port } = Context.get(context, HttpServer.HttpServer).address as NetAddress.InetAddress

      const body = JSON.stringify({ external_id: "slow", name: "Slow" })
      let sendRest: () => void = () => {}
      const reply = Effect.callback<{ status: number; body: string }>((resume) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/api/v1/categories/upsert",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "idempotency-key": "shutdown-0001",
              "transfer-encoding": "chunked"
            }
          },
          (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("end", () =>
              resume(Effect.succeed({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
            )
          }
        )
        req.on("error", (e) => resume(Effect.die(e)))
        req.write(body.slice(0, 10))
        sendRest = () => req.end(body.slice(10))
      })
      const inFlight = yield* Effect.forkChild(reply)
      yield* Effect.sleep("200 millis")
      const closing = yield* Effect.forkChild(Scope.close(serverScope, Exit.void))
      yield* Effect.sleep("200 millis")
      const refused = yield* Effect.result(Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`)))
      expect(refused._tag).toBe("Failure")
      sendRest()
      const done = yield* Fiber.await(inFlight)
      yield* Fiber.await(closing)
      expect(Exit.isSuccess(done)).toBe(true)
      if (Exit.isSuccess(done)) {
        expect(done.value.status).toBe(200)
        expect(JSON.parse(done.value.body)).toMatchObject({ outcome: "created" })
      }
    }).pipe(Effect.scoped),
  30_000
)
