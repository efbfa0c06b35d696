/**
 * The embedded default storage: SQLite through node:sqlite (`SqliteClient`), with its migrations.
 *
 * @packageDocumentation
 */
/** The SQLite migrations of the logical schema, and `migrate`, which applies those not yet run. */
export * as Migrations from "./Migrations.js"
export { layer, SqliteLive, type SqliteConfig } from "./SqliteLive.js"
/** The database's `CommitVersion`s: of every commit, and of other connections' commits. */
export * as SqliteCommitVersion from "./SqliteCommitVersion.js"
/** The `SqlClient` over node:sqlite that `layer` uses. */
export * as SqliteClient from "./SqliteClient.js"
