import { expect } from "vitest"
import * as PgTesting from "@catalog-sync/adapter-pg/testing"
import { Admin, Ids, InventoryAdmin, Scope } from "@catalog-sync/core"
import { layer as sqlitePorts } from "@catalog-sync/adapter-sqlite"
import {
  ConfigProvider,
  Context,
  Duration,
  Effect,
  Layer,
  Logger,
  Option,
  Redacted,
  References,
  Schedule
} from "effect"
import { HttpServer } from "effect/http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { request as httpRequest } from "node:http"
import { join } from "node:path"
import { databaseFile, PersistenceLive, ServerLive, type ServerOverrides } from "../src/Server.js"
import type { ServerConfig } from "../src/ServerConfig.js"
import { MetricsPort } from "../src/Observability/MetricsEndpoint.js"
import { at, errorOf, jobOf } from "./Json.js"

const isBusy = (error: unknown) =>
  typeof error === "object" &&
  error !== null &&
  (error as { _tag?: unknown })._tag === "PersistenceError" &&
  (error as { retryable?: unknown }).retryable === true

/** The service with each method's effect tried again, every 20 ms for up to 20 s, while the database is busy. */
const retryingWhileBusy = <S extends object>(service: S): S =>
  new Proxy(service, {
    get: (target, key, receiver) => {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== "function") return value
      return (...args: Array<unknown>) => {
        const result: unknown = value.apply(target, args)
        return Effect.isEffect(result)
          ? Effect.retry(result, { while: isBusy, schedule: Schedule.spaced("20 millis"), times: 1_000 })
          : result
      }
    }
  })

export interface Tenant {
  readonly companyId: string
  readonly connectionId: string
  /** A key of this tenant's connection with these scopes. */
  readonly key: (
    scopes: ReadonlyArray<string>,
    options?: { readonly connectionId?: string }
  ) => Effect.Effect<string, unknown>
  readonly newConnection: Effect.Effect<string, unknown>
}

/** A real server on a free loopback port over a SQLite file in a temp folder, and admin access to it. */
export class TestServer extends Context.Service<
  TestServer,
  {
    readonly url: string
    readonly admin: Admin.Admin["Service"]
    readonly inventoryAdmin: InventoryAdmin.InventoryAdmin["Service"]
    readonly tenant: (overrides?: Record<string, unknown>) => Effect.Effect<Tenant, unknown>
    /** The server's data folder (SQLite file, staging). */
    readonly dataDir: string
    /** The server's configuration, to start another instance on the same data (a restart). */
    readonly config: ServerConfig
    /** `http://127.0.0.1:<METRICS_PORT>` when the server was started with a metrics port. */
    readonly metricsUrl: string | undefined
  }
>()("TestServer") {}

/** Which database the end-to-end suites run on. */
export const testDatabase: "sqlite" | "postgres" = process.env.TEST_DATABASE === "postgres" ? "postgres" : "sqlite"

/**
 * Settings every test server runs with unless a test sets them: the suites send invalid keys and open
 * their connections from one address (127.0.0.1) on behalf of many clients, so the failed-key budgets
 * and the per-address connection cap are raised; the edge suite tests the documented defaults.
 */
const testDefaults: Record<string, string> = {
  AUTH_FAILURES_PER_MINUTE: "100000",
  AUTH_FAILURES_GLOBAL_PER_MINUTE: "1000000",
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: "1000"
}

/** A log line of the server: its level (as Effect 3 labelled it: DEBUG, INFO, WARN, ERROR), message and annotations. */
export interface LoggedLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/**
 * A test server whose layers may be replaced (fault injection) and whose environment variables may be
 * set (`env`, read before the process environment); `TestServerLive` runs the defaults. Options:
 * - `database`: the engine, the one TEST_DATABASE names unless given (a suite that compares both engines
 *   starts one of each);
 * - `seed`: runs on the server's empty database before the server starts (and migrates it): data an earlier
 *   version wrote;
 * - `logs`: the server logs at debug level into it.
 */
export const TestServerWith = (
  overrides: ServerOverrides = {},
  env: Record<string, string> = {},
  {
    database = testDatabase,
    seed = () => Effect.void,
    logs
  }: {
    readonly database?: "sqlite" | "postgres"
    readonly seed?: (config: ServerConfig) => Effect.Effect<void, unknown>
    readonly logs?: Array<LoggedLine>
  } = {}
) =>
  Layer.effect(
    TestServer,
    Effect.gen(function* () {
      const dataDir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-sync-e2e-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const base: ServerConfig = {
        port: 0,
        host: "127.0.0.1",
        dataDir,
        databaseFile: Option.none(),
        shutdownTimeoutSeconds: 1,
        logLevel: logs === undefined ? "Warn" : "Debug"
      }
      // TEST_DATABASE=postgres runs the same end-to-end suites on a fresh PostgreSQL database (npm test does both).
      const config: ServerConfig =
        database === "postgres"
          ? {
              ...base,
              postgres: {
                url: Redacted.make(yield* PgTesting.freshDatabase),
                poolSize: 5,
                statementTimeoutMillis: 30_000
              }
            }
          : base
      yield* seed(config)
      const logged =
        logs === undefined
          ? ServerLive(config, overrides)
          : ServerLive(config, overrides).pipe(
              Layer.provide(
                Logger.layer([
                  Logger.make(({ fiber, logLevel, message }) =>
                    logs.push({
                      level: logLevel.toUpperCase(),
                      message: String(Array.isArray(message) ? message[0] : message),
                      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
                    })
                  )
                ])
              )
            )
      const current = yield* ConfigProvider.ConfigProvider
      const context = yield* Layer.build(logged).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.orElse(ConfigProvider.fromEnvRecord({ ...testDefaults, ...env }), current)
        )
      )
      const address = Context.get(context, HttpServer.HttpServer).address
      if (address._tag === "UnixPathAddress")
        return yield* Effect.die(new Error("the test server listens on a socket file"))
      // The admin's own connection to the server's database, in the server's process: on SQLite a write that
      // waited there for the server's open transaction (SQLite's busy timeout blocks the thread)
      // would hold up the very event loop that transaction needs to end. It does not wait, and is tried
      // again, off the thread, while the database is busy.
      const adminContext = yield* Layer.build(
        Layer.mergeAll(Admin.Admin.Default, InventoryAdmin.InventoryAdmin.Default).pipe(
          Layer.provide(
            config.postgres === undefined
              ? sqlitePorts({ filename: databaseFile(config), busyTimeout: Duration.zero })
              : PersistenceLive(config)
          ),
          Layer.provide(Ids.IdsLive)
        )
      )
      const admin = retryingWhileBusy(Context.get(adminContext, Admin.Admin))
      const inventoryAdmin = retryingWhileBusy(Context.get(adminContext, InventoryAdmin.InventoryAdmin))
      let counter = 0
      const tenant = (overrides: Record<string, unknown> = {}) =>
        Effect.gen(function* () {
          const company = yield* admin.createCompany({
            name: "Acme",
            currency: "EUR",
            main_language: "en",
            languages: ["de"],
            tax_model: "exclusive",
            tax_rates: ["20"],
            storage_slug: `acme-${++counter}-${Date.now()}`,
            granted_scopes: Scope.all,
            ...overrides
          })
          const connection = yield* admin.createConnection(company.id, "ERP")
          const key = (scopes: ReadonlyArray<string>, options: { readonly connectionId?: string } = {}) =>
            admin
              .createKey({ connection_id: options.connectionId ?? connection.id, scopes, lifetime_days: 30 })
              .pipe(Effect.map((created) => created.token))
          const newConnection = admin.createConnection(company.id, "Shop").pipe(Effect.map((c) => c.id as string))
          return {
            companyId: company.id as string,
            connectionId: connection.id as string,
            key,
            newConnection
          } satisfies Tenant
        })
      const metrics = Context.getOption(context, MetricsPort)
      const metricsUrl = Option.isSome(metrics) ? `http://127.0.0.1:${metrics.value.port}` : undefined
      return { url: `http://127.0.0.1:${address.port}`, admin, inventoryAdmin, tenant, dataDir, config, metricsUrl }
    })
  )

export const TestServerLive = TestServerWith()

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** An answer in the spec's error body (section 7), with its request id in the body and the header. */
export const expectError = (
  reply: { readonly status: number; readonly headers: Headers; readonly body: unknown },
  status: number,
  code: string
) => {
  expect({ status: reply.status, code: at(reply.body, "error", "code") }).toEqual({ status, code })
  expect(at(reply.body, "request_id")).toMatch(uuidPattern)
  expect(reply.headers.get("x-request-id")).toBe(at(reply.body, "request_id"))
  expect(typeof errorOf(reply.body).message).toBe("string")
}

/** An answer of the API: its body is the parsed JSON (undefined when the text is not JSON), read through ./Json.ts. */
export interface Reply<Body = unknown> {
  readonly status: number
  readonly headers: Headers
  readonly body: Body
  readonly text: string
}

/** Rate windows are fixed minutes: start a burst early in one, so that it cannot straddle two. */
export const earlyInMinute = Effect.suspend(() => {
  const intoMinute = Date.now() % 60_000
  return intoMinute < 45_000 ? Effect.void : Effect.sleep(60_000 - intoMinute + 50)
})

let keyCounter = 0
/** A fresh idempotency key per call unless one is given. */
export const freshKey = () => `test-key-${Date.now()}-${++keyCounter}`

/** A request to the API under /api/v1 (with the token, a JSON or raw body, an idempotency key on writes). */
export const call = (
  url: string,
  method: string,
  path: string,
  options: {
    readonly token?: string
    readonly body?: unknown
    readonly raw?: string
    readonly headers?: Record<string, string>
    readonly idempotencyKey?: string | null
  } = {}
) =>
  Effect.promise(async (): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    if ((method === "POST" || method === "DELETE") && options.idempotencyKey !== null) {
      headers["idempotency-key"] ??= options.idempotencyKey ?? freshKey()
    }
    const response = await fetch(`${url}/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed, text }
  })

/** A request through node:http, for what fetch cannot send (a Host header, raw bytes). */
export const rawRequest = (
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer
) =>
  Effect.callback<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resume) => {
      const target = new URL(url)
      const req = httpRequest({ host: target.hostname, port: target.port, method, path, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          resume(
            Effect.succeed({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8")
            })
          )
        )
      })
      req.on("error", (error) => resume(Effect.die(error)))
      if (body !== undefined) req.write(body)
      req.end()
    }
  )

/** POST /media as multipart: the fields, then the file part `file` (none when undefined). */
export const uploadMedia = (
  url: string,
  token: string,
  fields: Record<string, string>,
  file: Uint8Array | undefined,
  key: string = freshKey()
) =>
  Effect.promise(async (): Promise<Reply> => {
    const form = new FormData()
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    if (file !== undefined) form.append("file", new Blob([file]), "image.png")
    const response = await fetch(`${url}/api/v1/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": key },
      body: form
    })
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text === "" ? undefined : (JSON.parse(text) as unknown)
    }
  })

/** Polls GET /jobs/{id} until the job is in one of `states` (by default any end: completed, failed, paused). */
export const waitJob = (
  url: string,
  token: string,
  id: string,
  states: ReadonlyArray<string> = ["completed", "failed", "paused"]
) =>
  Effect.gen(function* () {
    for (let i = 0; i < 600; i++) {
      const job = jobOf((yield* call(url, "GET", `/jobs/${id}`, { token })).body)
      if (states.includes(job.state)) return job
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.die(new Error(`job ${id} did not reach ${states.join("/")}`))
  })
