import type { Connection } from "effect/sql/SqlConnection"
import type { Duration, Redacted } from "effect"

/** Where and how to reach the PostgreSQL database. */
export interface PgConfig {
  /** A `postgres://user:password@host:port/database` connection string; redacted so it never reaches logs. */
  readonly url: Redacted.Redacted<string>
  /** Connections per instance. Default 10; the sum over all instances must stay below `max_connections`. */
  readonly poolSize?: number | undefined
  /** The server cancels a statement running longer than this. Default 30 s; 0 turns it off. */
  readonly statementTimeout?: Duration.Input | undefined
  /** How long to wait for a connection, at start and from the pool. Default 10 s. */
  readonly connectTimeout?: Duration.Input | undefined
  /** Shown in `pg_stat_activity`. Default `catalog-sync`. */
  readonly applicationName?: string | undefined
  /**
   * Wraps the connection each statement runs on (tests that count or fail statements). With it, every
   * statement outside a transaction takes a connection of the pool for its run, as a transaction does.
   */
  readonly wrapConnection?: ((connection: Connection) => Connection) | undefined
}
