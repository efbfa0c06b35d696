/** The embedded default storage: SQLite through @effect/sql-sqlite-node, with its migrations. */
export * as Migrations from "./Migrations.js"
export { layer, SqliteLive, type SqliteConfig } from "./SqliteLive.js"
export * as SqliteChangeHead from "./SqliteChangeHead.js"
export * as SqliteCommits from "./SqliteCommits.js"
