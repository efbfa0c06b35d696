/** The embedded default storage: SQLite through better-sqlite3 (`SqliteClient`), with its migrations. */
export * as Migrations from "./Migrations.js"
export { layer, SqliteLive, type SqliteConfig } from "./SqliteLive.js"
export * as SqliteChangeHead from "./SqliteChangeHead.js"
export * as SqliteClient from "./SqliteClient.js"
