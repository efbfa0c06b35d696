/** Storage for several instances on one database: PostgreSQL through @effect/sql-pg, with its migrations. */
export * as Migrations from "./Migrations.js"
export { layer, type PgConfig, PgLive, PgPoolUse, type PoolUse } from "./PgLive.js"
