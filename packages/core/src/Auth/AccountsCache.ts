import { Effect, Layer, Option } from "effect"
import { CommitVersion } from "../Shared/CommitVersion.js"
import { Accounts, type KeyGrant } from "./Accounts.js"

/** Keys whose resolution is kept at once; a full cache starts over (it refills from the next requests). */
const maxEntries = 10_000

interface Entry {
  readonly version: string
  readonly grant: Option.Option<KeyGrant>
}

/**
 * Accounts whose key lookups (`findKey`, the one read of every authenticated request) are served from
 * memory while the `CommitVersion` it is given (one that covers every administrator's change: SQLite's
 * writer `PRAGMA data_version`, PostgreSQL's notifications of account writes) is unchanged, so
 * authentication costs no SQL on the hot path; any administrator's change moves the version and the next
 * lookup reads the data again, so a revoked key, a disabled connection or company, a changed grant or
 * domain take effect on the next request. Only found keys are kept (a stream of unknown key ids cannot
 * fill the cache). Everything else reads through.
 */
export const layer: Layer.Layer<Accounts, never, Accounts | CommitVersion> = Layer.effect(
  Accounts,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const version = yield* CommitVersion
    const entries = new Map<string, Entry>()
    // Writes through this very service (an embedder's admin use cases, or a connection whose own commits
    // do not move the source's version, like SQLite's data_version) move a local generation too, before
    // and after they run, so a lookup overlapping a write is never kept under the version it will have.
    let generation = 0
    const writing = <A, E>(write: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.sync(() => void generation++).pipe(
        Effect.andThen(write),
        Effect.ensuring(Effect.sync(() => void generation++))
      )
    return Accounts.of({
      ...accounts,
      saveCompany: (company) => writing(accounts.saveCompany(company)),
      saveConnection: (connection) => writing(accounts.saveConnection(connection)),
      insertKey: (key, secretHash) => writing(accounts.insertKey(key, secretHash)),
      revokeKey: (keyId, at) => writing(accounts.revokeKey(keyId, at)),
      saveLocation: (location) => writing(accounts.saveLocation(location)),
      assignLocation: (assignment) => writing(accounts.assignLocation(assignment)),
      unassignLocation: (connectionId, locationId) => writing(accounts.unassignLocation(connectionId, locationId)),
      findKey: (keyId, domain) =>
        // Combinators rather than a generator: every request that needs a key asks, in the fewest steps.
        Effect.flatMap(version.current, (source) => {
          if (Option.isNone(source)) return accounts.findKey(keyId, domain)
          const current = `${generation}:${source.value}`
          const slot = `${keyId}\u0000${domain ?? ""}`
          const cached = entries.get(slot)
          if (cached !== undefined && cached.version === current) return Effect.succeed(cached.grant)
          return Effect.map(accounts.findKey(keyId, domain), (grant) => {
            if (Option.isSome(grant)) {
              if (entries.size >= maxEntries) entries.clear()
              entries.set(slot, { version: current, grant })
            } else {
              entries.delete(slot)
            }
            return grant
          })
        })
    })
  })
)
