import { Context, type Effect, type Option } from "effect"
import type { AccountConflict } from "../Auth/Accounts.js"
import type { PersistenceError } from "../Shared/Errors.js"
import type { CompanyId } from "../Shared/Ids.js"
import type { PanelSession, PanelUser } from "./PanelUser.js"
import type { FailureCount } from "./SignInThrottle.js"

/** A user with the stored hash of their password, as sign-in reads it. */
export interface UserWithPassword {
  readonly user: PanelUser
  readonly passwordHash: string
}

/** A session with its user, read in one round trip per panel request. */
export interface SessionWithUser {
  readonly session: PanelSession
  readonly user: PanelUser
}

/**
 * Port: panel users with their password hashes, their sessions, and the failed sign-ins the throttle
 * counts. Written by `PeopleAdmin` only. Emails reach it normalised (trimmed, lower-cased).
 */
export class People extends Context.Service<
  People,
  {
    /** Fails with `AccountConflict` (field `email`) when the email is taken. */
    readonly insertUser: (
      user: PanelUser,
      passwordHash: string
    ) => Effect.Effect<void, PersistenceError | AccountConflict>
    readonly getUser: (id: string) => Effect.Effect<Option.Option<PanelUser>, PersistenceError>
    readonly findUserByEmail: (email: string) => Effect.Effect<Option.Option<UserWithPassword>, PersistenceError>
    /** A company's people, or with `null` every user of the platform; in creation order. */
    readonly listUsers: (companyId: CompanyId | null) => Effect.Effect<ReadonlyArray<PanelUser>, PersistenceError>
    /** False when there is no such user. */
    readonly setUserEnabled: (id: string, enabled: boolean) => Effect.Effect<boolean, PersistenceError>
    /**
     * Disables the user unless they are the last enabled owner of their company, the check and the write
     * as one: two owners disabling each other at the same moment leave one of them enabled.
     */
    readonly disableKeepingAnOwner: (
      id: string
    ) => Effect.Effect<"disabled" | "last_owner" | "not_found", PersistenceError>
    /** False when there is no such user. */
    readonly setPasswordHash: (id: string, passwordHash: string) => Effect.Effect<boolean, PersistenceError>

    readonly insertSession: (session: PanelSession) => Effect.Effect<void, PersistenceError>
    readonly findSession: (id: string) => Effect.Effect<Option.Option<SessionWithUser>, PersistenceError>
    readonly touchSession: (id: string, lastSeenAt: string) => Effect.Effect<void, PersistenceError>
    readonly deleteSession: (id: string) => Effect.Effect<void, PersistenceError>
    /** Ends every session of the user; returns how many there were. */
    readonly deleteSessionsOf: (userId: string) => Effect.Effect<number, PersistenceError>

    /**
     * Records one failed sign-in under each key (epoch ms), and forgets failures older than `forgetBefore`
     * (of any key).
     */
    readonly recordFailure: (
      keys: ReadonlyArray<string>,
      at: number,
      forgetBefore: number
    ) => Effect.Effect<void, PersistenceError>
    /**
     * Forgets one failure of each key recorded at `at` (epoch ms): a sign-in counts itself as a failure
     * before its password is checked, and takes that back when it succeeds or is throttled.
     */
    readonly forgetFailure: (keys: ReadonlyArray<string>, at: number) => Effect.Effect<void, PersistenceError>
    /** The failures of `key` at or after `since`. */
    readonly countFailures: (key: string, since: number) => Effect.Effect<FailureCount, PersistenceError>
    /** Forgets every failure of `key` (a successful sign-in clears its account's from its address). */
    readonly clearFailures: (key: string) => Effect.Effect<void, PersistenceError>
    /** Forgets every failure of the keys that begin with `prefix`; returns how many there were. */
    readonly clearFailuresWithPrefix: (prefix: string) => Effect.Effect<number, PersistenceError>

    /**
     * Deletes at most `limit` sessions that have ended: expired at or before `now`, or last seen at or
     * before `idleSince` (ISO times). Returns how many.
     */
    readonly deleteEndedSessions: (
      ended: { readonly now: string; readonly idleSince: string },
      limit: number
    ) => Effect.Effect<number, PersistenceError>
    /** Deletes at most `limit` failures recorded before `before` (epoch ms). Returns how many. */
    readonly deleteFailuresBefore: (before: number, limit: number) => Effect.Effect<number, PersistenceError>
  }
>()("@catalog-sync/core/People") {}
