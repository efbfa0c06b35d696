import { Context, Effect, Layer, Option } from "effect"
import { AccountConflict } from "../Auth/Accounts.js"
import { type AuditEntry, AuditLog } from "../Audit/AuditLog.js"
import type { PanelSession, PanelUser } from "../People/PanelUser.js"
import { People } from "../People/People.js"

const byCreation = (user: PanelUser) => Date.parse(user.created_at)

/** Panel users, sessions and sign-in failures in memory. */
export const makePeople = () => {
  const users = new Map<string, { user: PanelUser; passwordHash: string }>()
  const sessions = new Map<string, PanelSession>()
  let failures: Array<{ readonly key: string; readonly at: number }> = []
  const byEmail = (email: string) => Array.from(users.values()).find((u) => u.user.email === email.toLowerCase())
  return People.of({
    insertUser: (user, passwordHash) =>
      Effect.suspend(() => {
        if (byEmail(user.email) !== undefined) {
          return Effect.fail(new AccountConflict({ field: "email", message: `the email ${user.email} is taken` }))
        }
        users.set(user.id, { user, passwordHash })
        return Effect.void
      }),
    getUser: (id) => Effect.sync(() => Option.fromNullishOr(users.get(id)?.user)),
    findUserByEmail: (email) => Effect.sync(() => Option.fromNullishOr(byEmail(email))),
    listUsers: (companyId) =>
      Effect.sync(() =>
        Array.from(users.values(), (u) => u.user)
          .filter((u) => companyId === null || u.company_id === companyId)
          .sort((a, b) => byCreation(a) - byCreation(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      ),
    setUserEnabled: (id, enabled) =>
      Effect.sync(() => {
        const found = users.get(id)
        if (found !== undefined) users.set(id, { ...found, user: { ...found.user, enabled } })
        return found !== undefined
      }),
    disableKeepingAnOwner: (id) =>
      Effect.sync(() => {
        const found = users.get(id)
        if (found === undefined) return "not_found" as const
        const { user } = found
        const anotherOwner = Array.from(users.values()).some(
          ({ user: other }) =>
            other.id !== id && other.company_id === user.company_id && other.role === "owner" && other.enabled
        )
        if (user.role === "owner" && user.enabled && !anotherOwner) return "last_owner" as const
        users.set(id, { ...found, user: { ...user, enabled: false } })
        return "disabled" as const
      }),
    setPasswordHash: (id, passwordHash) =>
      Effect.sync(() => {
        const found = users.get(id)
        if (found !== undefined) users.set(id, { ...found, passwordHash })
        return found !== undefined
      }),
    insertSession: (session) => Effect.sync(() => void sessions.set(session.id, session)),
    findSession: (id) =>
      Effect.sync(() => {
        const session = sessions.get(id)
        const owner = session && users.get(session.user_id)
        return session && owner ? Option.some({ session, user: owner.user }) : Option.none()
      }),
    touchSession: (id, lastSeenAt) =>
      Effect.sync(() => {
        const session = sessions.get(id)
        if (session !== undefined) sessions.set(id, { ...session, last_seen_at: lastSeenAt })
      }),
    deleteSession: (id) => Effect.sync(() => void sessions.delete(id)),
    deleteSessionsOf: (userId) =>
      Effect.sync(() => {
        const ended = Array.from(sessions.values()).filter((s) => s.user_id === userId)
        for (const session of ended) sessions.delete(session.id)
        return ended.length
      }),
    recordFailure: (keys, at, forgetBefore) =>
      Effect.sync(() => {
        failures = [...failures.filter((f) => f.at >= forgetBefore), ...keys.map((key) => ({ key, at }))]
      }),
    forgetFailure: (keys, at) =>
      Effect.sync(() => {
        for (const key of keys) {
          const index = failures.findIndex((f) => f.key === key && f.at === at)
          if (index >= 0) failures = [...failures.slice(0, index), ...failures.slice(index + 1)]
        }
      }),
    countFailures: (key, since) =>
      Effect.sync(() => {
        const counted = failures.filter((f) => f.key === key && f.at >= since)
        return {
          count: counted.length,
          oldest: counted.length === 0 ? null : Math.min(...counted.map((f) => f.at))
        }
      }),
    clearFailures: (key) =>
      Effect.sync(() => {
        failures = failures.filter((f) => f.key !== key)
      }),
    clearFailuresWithPrefix: (prefix) =>
      Effect.sync(() => {
        const before = failures.length
        failures = failures.filter((f) => !f.key.startsWith(prefix))
        return before - failures.length
      }),
    deleteEndedSessions: ({ idleSince, now }, limit) =>
      Effect.sync(() => {
        const ended = Array.from(sessions.values())
          .filter((s) => s.expires_at <= now || s.last_seen_at <= idleSince)
          .slice(0, limit)
        for (const session of ended) sessions.delete(session.id)
        return ended.length
      }),
    deleteFailuresBefore: (before, limit) =>
      Effect.sync(() => {
        let removed = 0
        failures = failures.filter((f) => (f.at < before && removed < limit ? (removed++, false) : true))
        return removed
      })
  })
}

/** The audit log in memory; an entry is appended after its write succeeds. */
export const makeAuditLog = () => {
  const entries: Array<AuditEntry> = []
  return AuditLog.of({
    withEntry: (write, entry) => Effect.tap(write, (result) => Effect.sync(() => void entries.push(entry(result)))),
    // Newest first, in the order of appending.
    list: ({ before, companyId, limit }) =>
      Effect.sync(() => {
        const end = before === undefined ? entries.length : entries.findIndex((e) => e.id === before)
        return entries
          .slice(0, Math.max(0, end))
          .filter((e) => companyId === undefined || e.company_id === companyId)
          .reverse()
          .slice(0, Math.max(0, limit))
      })
  })
}

/** People (users, sessions, sign-in failures) and the audit log, in memory. */
export const peopleLayer: Layer.Layer<People | AuditLog> = Layer.effectContext(
  Effect.sync(() => Context.make(People, makePeople()).pipe(Context.add(AuditLog, makeAuditLog())))
)
