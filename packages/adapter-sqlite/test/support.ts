import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { layer, type SqliteConfig } from "../src/index.js"

/** A folder under the OS temp dir that is removed, database files included, when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "catalog-sync-sqlite-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** The SQLite ports on a fresh database file in a temp folder that lives as long as the layer. */
export const tempLayer = (options: Omit<SqliteConfig, "filename"> = {}) =>
  Layer.unwrap(Effect.map(tempDir, (dir) => layer({ ...options, filename: join(dir, "catalog.db") })))
