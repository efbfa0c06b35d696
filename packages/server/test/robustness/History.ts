/**
 * A history of concurrent writes as the clients saw them, and the checks a correct server must pass.
 *
 * Each logical write (one Idempotency-Key) is an upsert of one record with an `expected_revision` and a
 * value no other write uses, sent one or more times (a client that timed out retries with the same key).
 * Every attempt ends `ok` (the server answered 200), `fail` (it answered an error: nothing was applied
 * by that attempt) or `unknown` (the client gave up waiting: it may or may not have been applied).
 */

export type Attempt =
  | {
      readonly type: "ok"
      readonly revision: number
      readonly name: string
      readonly replayed: boolean
      readonly updatedAt: string
      readonly invokedAt: number
      readonly completedAt: number
    }
  | {
      readonly type: "fail"
      readonly status: number
      readonly code: string
      readonly current?: number
      readonly invokedAt: number
      readonly completedAt: number
    }
  | { readonly type: "unknown"; readonly invokedAt: number }

export interface LogicalWrite {
  readonly key: string
  readonly record: string
  readonly expected: number
  readonly value: string
  readonly attempts: Array<Attempt>
}

/** What the server holds at the end: each record's revision and name, and the whole change feed. */
export interface Observed {
  /** By record id: the stored revision and name; `initial` is the name written at revision 1. */
  readonly records: ReadonlyMap<string, { readonly revision: number; readonly name: string; readonly initial: string }>
  /** Every change of the company, as the feed delivered it, in order. */
  readonly feed: ReadonlyArray<{ readonly id: string; readonly revision: number }>
}

export interface Figures {
  readonly writes: number
  readonly attempts: number
  readonly ok: number
  readonly fail: number
  readonly unknown: number
  readonly replays: number
  readonly committed: number
}

/** Checks the history against what the server holds; returns the violations (none for a correct server). */
export const checkHistory = (
  writes: ReadonlyArray<LogicalWrite>,
  observed: Observed
): { readonly violations: Array<string>; readonly figures: Figures } => {
  const violations: Array<string> = []
  const fail = (message: string) => void violations.push(message)

  // Idempotency: a key executes at most once, so all its successes are one stored response, and once
  // it has succeeded no attempt of it may run the write again (which would end in revision_conflict).
  const acked = new Map<string, { readonly write: LogicalWrite; readonly revision: number }>()
  for (const write of writes) {
    const oks = write.attempts.filter((a): a is Extract<Attempt, { type: "ok" }> => a.type === "ok")
    if (oks.length === 0) continue
    const first = oks[0]!
    for (const ok of oks) {
      if (ok.revision !== first.revision || ok.updatedAt !== first.updatedAt || ok.name !== first.name) {
        fail(
          `key ${write.key}: two different successes (${first.revision}@${first.updatedAt} and ${ok.revision}@${ok.updatedAt}): executed twice`
        )
      }
    }
    if (oks.filter((a) => !a.replayed).length > 1) fail(`key ${write.key}: more than one success without replayed`)
    if (first.revision !== write.expected + 1)
      fail(`key ${write.key}: expected_revision ${write.expected} acknowledged at revision ${first.revision}`)
    if (first.name !== write.value) fail(`key ${write.key}: acknowledged with another value (${first.name})`)
    const okAt = Math.min(...oks.map((a) => a.completedAt))
    for (const attempt of write.attempts) {
      if (attempt.type === "fail" && attempt.code === "revision_conflict" && attempt.invokedAt > okAt) {
        fail(
          `key ${write.key}: a retry after its success was executed again (revision_conflict instead of the stored response)`
        )
      }
    }
    acked.set(write.key, { write, revision: first.revision })
  }

  // One chain per record: no two acknowledged writes from one expected_revision.
  const byRevision = new Map<string, LogicalWrite>()
  for (const { write, revision } of acked.values()) {
    const slot = `${write.record}@${revision}`
    const other = byRevision.get(slot)
    if (other !== undefined)
      fail(
        `${write.record}: keys ${other.key} and ${write.key} both acknowledged from expected_revision ${write.expected}`
      )
    byRevision.set(slot, write)
  }

  // A conflict reports a current revision that is not the expected one and that existed.
  for (const write of writes) {
    const final = observed.records.get(write.record)?.revision ?? 0
    for (const attempt of write.attempts) {
      if (attempt.type === "fail" && attempt.code === "revision_conflict" && attempt.current !== undefined) {
        if (attempt.current === write.expected || attempt.current > final) {
          fail(
            `key ${write.key}: revision_conflict with current_revision ${attempt.current} (expected ${write.expected}, final ${final})`
          )
        }
      }
    }
  }

  // The feed: each committed change exactly once, revisions 1..final per record in order.
  const seen = new Map<string, Array<number>>()
  for (const change of observed.feed) seen.set(change.id, [...(seen.get(change.id) ?? []), change.revision])
  for (const [id, revisions] of seen) {
    const final = observed.records.get(id)?.revision
    const chain = Array.from({ length: final ?? 0 }, (_, i) => i + 1)
    if (JSON.stringify(revisions) !== JSON.stringify(chain))
      fail(`${id}: the feed delivered revisions ${revisions.join(",")}, the record is at ${final}`)
  }
  for (const [id, record] of observed.records) {
    if (!seen.has(id) && record.revision > 0) fail(`${id}: revision ${record.revision} but no change in the feed`)
  }

  // No acknowledged write lost: its revision exists; the last revision holds its writer's value; every
  // revision was produced by a write that was sent (acknowledged, or with an unknown outcome).
  for (const [id, record] of observed.records) {
    for (const { write, revision } of acked.values()) {
      if (write.record === id && revision > record.revision)
        fail(`key ${write.key}: acknowledged at revision ${revision}, the record is at ${record.revision}`)
    }
    const candidates = (revision: number) =>
      writes.filter(
        (w) =>
          w.record === id &&
          w.expected === revision - 1 &&
          w.attempts.some((a) => a.type === "ok" || a.type === "unknown")
      )
    for (let revision = 2; revision <= record.revision; revision++) {
      if (candidates(revision).length === 0) fail(`${id}: revision ${revision} was produced by no write that was sent`)
    }
    const last = byRevision.get(`${id}@${record.revision}`)
    if (last !== undefined) {
      if (record.name !== last.value)
        fail(`${id}: at revision ${record.revision} holds ${record.name}, acknowledged ${last.value} (lost write)`)
    } else if (record.revision === 1) {
      if (record.name !== record.initial) fail(`${id}: at revision 1 holds ${record.name}, not its initial value`)
    } else if (!candidates(record.revision).some((w) => w.value === record.name)) {
      fail(`${id}: holds ${record.name}, which no write with expected_revision ${record.revision - 1} sent`)
    }
  }

  const attempts = writes.flatMap((w) => w.attempts)
  return {
    violations,
    figures: {
      writes: writes.length,
      attempts: attempts.length,
      ok: attempts.filter((a) => a.type === "ok").length,
      fail: attempts.filter((a) => a.type === "fail").length,
      unknown: attempts.filter((a) => a.type === "unknown").length,
      replays: attempts.filter((a) => a.type === "ok" && a.replayed).length,
      committed: observed.feed.length
    }
  }
}
