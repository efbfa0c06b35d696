import { Context, Effect, Layer, Option } from "effect"
import { Accounts, type KeyGrant } from "./Accounts.js"

/**
 * The version of the account data (companies, connections, keys, grants, domains, subscriptions) as this
 * process can observe it without reading the data: it changes whenever an administrator's change commits.
 * `None` means the version cannot be known right now (the source is down): callers must then read the
 * data itself. Adapters provide it (SQLite: `PRAGMA data_version`; PostgreSQL: notifications of admin
 * writes); the default is always `None`, so nothing is cached unless a version source is provided.
 */
export class AccountsVersion extends Context.Reference<AccountsVersion>()("@catalog-sync/core/AccountsVersion", {
  defaultValue: (): { readonly current: Effect.Effect<Option.Option<string>> } => ({ current: Effect.succeed(Option.none()) })
}) {}

/** Keys whose resolution is kept at once; a full cache starts over (it refills from the next requests). */
const maxEntries = 10_000

interface Entry {
  readonly version: string
  readonly grant: Option.Option<KeyGrant>
}

/**
 * Accounts whose key lookups (`findKey`, the one read of every authenticated request) are served from
 * memory while the account data's version is unchanged, so authentication costs no SQL on the hot path;
 * any administrator's change moves the version and the next lookup reads the data again, so a revoked
 * key, a disabled connection or company, a changed grant or domain take effect on the next request.
 * Only found keys are kept (a stream of unknown key ids cannot fill the cache). Everything else reads
 * through.
 */
export const layer: Layer.Layer<Accounts, never, Accounts> = Layer.effect(
  Accounts,
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const version = yield* AccountsVersion
    const entries = new Map<string, Entry>()
    return Accounts.of({
      ...accounts,
      findKey: (keyId, domain) =>
        Effect.gen(function* () {
          const current = yield* version.current
          if (Option.isNone(current)) return yield* accounts.findKey(keyId, domain)
          const slot = `${keyId}\u0000${domain ?? ""}`
          const cached = entries.get(slot)
          if (cached !== undefined && cached.version === current.value) return cached.grant
          const grant = yield* accounts.findKey(keyId, domain)
          if (Option.isSome(grant)) {
            if (entries.size >= maxEntries) entries.clear()
            entries.set(slot, { version: current.value, grant })
          } else {
            entries.delete(slot)
          }
          return grant
        })
    })
  })
)
