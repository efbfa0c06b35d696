/**
 * Storage for several instances on one database: PostgreSQL through @effect/sql-pg, with its migrations.
 *
 * @packageDocumentation
 */
/** The PostgreSQL migrations of the logical schema, and `migrate`, which applies those not yet run. */
export * as Migrations from "./Migrations.js"
export { layer, type PgConfig, PgLive, PgPoolUse, type PoolUse } from "./PgLive.js"
