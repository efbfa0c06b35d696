import { Clock, Context, Effect, Schema } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import { CompanyId, type Ids } from "../Shared/Ids.js"

/**
 * One change to the platform's accounts: who (`actor`: a panel user's email, `cli:<os user>`, or
 * `system`), what (`action`, e.g. `key.create`, on `target`, with scalar `details`), when, from which
 * address, and in which company (null for platform-wide changes such as creating an administrator).
 */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  at: Schema.String,
  actor: Schema.String,
  actor_user_id: Schema.NullOr(Schema.String),
  company_id: Schema.NullOr(CompanyId),
  action: Schema.String,
  target: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  details: Schema.Record(Schema.String, Schema.String)
}).annotate({ identifier: "AuditEntry" })
export type AuditEntry = typeof AuditEntry.Type

/**
 * A page of the log, newest first: one company's entries (or every entry when `companyId` is left out),
 * at most `limit`, older than the entry `before` (an entry id, the last of the previous page).
 */
export interface AuditQuery {
  readonly companyId?: CompanyId | undefined
  readonly limit: number
  readonly before?: string | undefined
}

/** Who is making the changes a use case records: its label in the log, the panel user (if any), the client address. */
export interface Actor {
  readonly label: string
  readonly userId: string | null
  readonly address: string | null
}

/**
 * Who is acting, read by every audited write. Default `system`; the CLI provides `cli:<os user>` and
 * the panel the signed-in user with the client's address.
 */
export const Actor = Context.Reference<Actor>("@catalog-sync/core/Actor", {
  defaultValue: () => ({ label: "system", userId: null, address: null })
})

/** Port: the audit log, append-only. */
export class AuditLog extends Context.Service<
  AuditLog,
  {
    /**
     * Runs `write` and appends the entry made from its result, as one transaction where the store has them:
     * a write that fails appends nothing, and an entry that cannot be appended undoes the write.
     */
    readonly withEntry: <A, E, R>(
      write: Effect.Effect<A, E, R>,
      entry: (result: A) => AuditEntry
    ) => Effect.Effect<A, E | PersistenceError, R>
    readonly list: (query: AuditQuery) => Effect.Effect<ReadonlyArray<AuditEntry>, PersistenceError>
  }
>()("@catalog-sync/core/AuditLog") {}

/** What a write says about itself in the log; the rest of the entry comes from the `Actor` and the clock. */
export interface AuditNote {
  readonly action: string
  readonly company_id: CompanyId | null
  readonly target: string | null
  readonly details?: Readonly<Record<string, string>> | undefined
}

/**
 * The recorder a service keeps: `audited(write, note)` runs the write and appends one entry, by the
 * current `Actor`, in the same transaction. `actor` overrides the current one (a sign-in is made by the
 * user signing in, whoever the request's actor was).
 */
export const makeRecorder =
  (log: AuditLog["Service"], ids: Ids["Service"]) =>
  <A, E, R>(
    write: Effect.Effect<A, E, R>,
    note: (result: A) => AuditNote,
    actor?: Actor
  ): Effect.Effect<A, E | PersistenceError, R> =>
    Effect.gen(function* () {
      const by = actor ?? (yield* Actor)
      const id = yield* ids.next
      const at = new Date(yield* Clock.currentTimeMillis).toISOString()
      return yield* log.withEntry(write, (result) => {
        const { details, ...rest } = note(result)
        return {
          id,
          at,
          actor: by.label,
          actor_user_id: by.userId,
          address: by.address,
          ...rest,
          details: { ...details }
        }
      })
    })

/** What `makeRecorder` returns. */
export type Recorder = ReturnType<typeof makeRecorder>
