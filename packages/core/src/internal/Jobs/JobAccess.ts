import { Clock, Effect, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { accessStopped, principalOf } from "../../Auth/Authenticate.js"
import type { Principal } from "../../Auth/Principal.js"
import type { JobFailure, StoredJob } from "../../Jobs/Job.js"

/** Whether a job may still act, and as whom. */
export type JobAccess =
  | { readonly _tag: "Allowed"; readonly principal: Principal }
  | { readonly _tag: "Stopped"; readonly failure: JobFailure }

/**
 * A job acts for the key that submitted (or last retried) it, with the scopes it had then, as far as the
 * company still grants them. Access stops as it does for requests (spec 5.4): when that key is revoked or
 * expired, or its connection, the company's permission or the subscription is disabled. Workers check it
 * when a job starts and before each batch, so a stopped job writes nothing further.
 */
export const jobAccess = (job: StoredJob) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const grant = yield* accounts.findKey(job.keyId)
    if (
      Option.isNone(grant) ||
      grant.value.company.id !== job.companyId ||
      grant.value.connection.id !== job.connectionId
    ) {
      return {
        _tag: "Stopped",
        failure: { code: "key_revoked", message: "the key that submitted the job no longer exists" }
      } satisfies JobAccess
    }
    const stopped = accessStopped(grant.value, yield* Clock.currentTimeMillis)
    if (stopped !== undefined) {
      return {
        _tag: "Stopped",
        failure: {
          code: stopped.reason,
          message: `${stopped.message}; the job stopped. Retry it with an active key of the same connection`
        }
      } satisfies JobAccess
    }
    return { _tag: "Allowed", principal: principalOf(grant.value, job.scopes) } satisfies JobAccess
  })
