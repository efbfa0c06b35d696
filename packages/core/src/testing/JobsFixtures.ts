import type { Vitest } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { ImportItem, ImportStore } from "../Imports/ImportStore.js"
import type { StoredJob } from "../Jobs/Job.js"
import { JobStore } from "../Jobs/JobStore.js"
import type { CompanyId, ConnectionId } from "../Shared/Ids.js"
import { Transactor } from "../Shared/Transactor.js"

/** The ports the jobs conformance suite holds an implementation to, and what its tests build with. */
export type JobPorts = JobStore | ImportStore | Transactor

export const uuid = () => globalThis.crypto.randomUUID()
export const at = "2026-01-01T00:00:00.000Z"
let clock = 1_000_000
export const scope = () => ({ companyId: uuid() as CompanyId, connectionId: uuid() as ConnectionId })

export const job = (
  of: { companyId: CompanyId; connectionId: ConnectionId },
  overrides: Partial<StoredJob> = {}
): StoredJob => ({
  id: uuid(),
  ...of,
  keyId: uuid(),
  kind: "import",
  state: "queued",
  scopes: ["catalog:write"],
  run: 1,
  attempts: 0,
  queuedAt: ++clock,
  leaseOwner: null,
  leaseUntil: null,
  failure: null,
  createdAt: at,
  startedAt: null,
  finishedAt: null,
  updatedAt: at,
  traceParent: null,
  ...overrides
})

export const item = (jobId: string, index: number): ImportItem => ({
  jobId,
  index,
  resource: "categories",
  body: { external_id: `c${index}`, name: `C ${index}`, nested: { keep: [1, "two"] } },
  externalId: `c${index}`,
  status: "pending",
  outcome: null,
  recordId: null,
  error: null,
  run: 1,
  updatedAt: at
})

/**
 * What the tests of one suite share. Claims act on every job of the store, so each test that claims first
 * drains what earlier tests left claimable far in the past (`drain`), then claims at `epoch`.
 */
export const jobsSuite = () => {
  // A time far after every earlier lease, so that only the jobs of this test can be claimed once drained.
  let epoch = 10_000_000_000
  const drain = (workerId: string) =>
    Effect.gen(function* () {
      const jobs = yield* JobStore
      epoch += 10_000_000
      for (;;) {
        const claimed = yield* jobs.claim({ workerId, nowMillis: epoch, leaseMillis: 1, at })
        if (Option.isNone(claimed)) return
        yield* jobs.finish(claimed.value.id, workerId, { state: "completed", failure: null, at })
      }
    })
  const insert = (j: StoredJob, max = 20) =>
    Effect.flatMap(Transactor, (t) => t.withTransaction(Effect.flatMap(JobStore, (s) => s.insert(j, max))))
  return {
    get epoch() {
      return epoch
    },
    drain,
    insert
  }
}

/** The tests of one concern, registered on the suite's layer. */
export type JobCases = (it: Vitest.MethodsNonLive<JobPorts>, suite: ReturnType<typeof jobsSuite>) => void
