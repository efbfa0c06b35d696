import { Effect, type Scope } from "effect"
import { RateLimited } from "../../RateLimit/RateLimiter.js"

/** Dry runs of one company that may run at once in one process. */
export const maxConcurrentDryRuns = 2

/** Seconds a refused dry run waits before it is sent again: a dry run takes a fraction of one. */
export const dryRunRetryAfterSeconds = 1

/**
 * A bound on each company's concurrent dry runs. A dry run holds a transaction for its records (on
 * SQLite, the one writer every company shares), so one company sending many at once would delay every
 * other company's writes; past the bound it gets 429 `rate_limited` with Retry-After before it waits for
 * the database.
 */
export const makeDryRunGate = () => {
  const running = new Map<string, number>()
  const leave = (companyId: string) =>
    Effect.sync(() => {
      const left = (running.get(companyId) ?? 1) - 1
      if (left === 0) running.delete(companyId)
      else running.set(companyId, left)
    })
  /** Holds one of the company's places for the scope, or fails when they are all taken. */
  const enter = (companyId: string): Effect.Effect<void, RateLimited, Scope.Scope> =>
    Effect.acquireRelease(
      Effect.suspend(() => {
        const count = running.get(companyId) ?? 0
        if (count >= maxConcurrentDryRuns)
          return Effect.fail(
            new RateLimited({
              message: `this company already runs ${maxConcurrentDryRuns} dry-run imports at once; retry when one has answered`,
              retry_after: dryRunRetryAfterSeconds
            })
          )
        running.set(companyId, count + 1)
        return Effect.void
      }),
      () => leave(companyId)
    )
  return { enter } as const
}
