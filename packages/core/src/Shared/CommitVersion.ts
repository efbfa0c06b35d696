import { Context, type Effect, type Option } from "effect"

/**
 * Port: whether anything was committed to the store since a value was read. A caching decorator reads
 * the version before it reads the data, keeps what it read under that version, and serves it while the
 * version stays the same; any commit in between moves the version, so nothing kept is newer-labelled
 * than the data it came from.
 *
 * Which commits move it is the source's part: SQLite's reader `PRAGMA data_version` moves with every
 * commit; its writer's with other connections' commits only (a cache in front of writes of this process
 * counts those itself, as `AccountsCache` does); PostgreSQL's notifications of account writes with the
 * account data's commits only. The composition root gives each decorator the source that covers what it
 * keeps. There is no default: without a source, nothing is cached.
 */
export class CommitVersion extends Context.Service<
  CommitVersion,
  {
    /**
     * A value that differs from one read earlier once a commit it covers happened in between. `None` when
     * it cannot be known right now (the source is down, or this fiber runs in a transaction, whose reads
     * see its own uncommitted writes): the caller then reads the data itself and keeps nothing.
     */
    readonly current: Effect.Effect<Option.Option<string>>
  }
>()("@catalog-sync/core/CommitVersion") {}
