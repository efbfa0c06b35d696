/**
 * The sign-in throttle's rules, apart from where the failures are counted: the `People` port counts them
 * in the database, so every instance sees the same numbers.
 */

/** Failures older than this no longer count. */
export const windowMillis = 15 * 60_000
/** Failures of one account (by email, known or not) in the window that stop its sign-ins. */
export const accountLimit = 10
/** Failures from one client address in the window that stop its sign-ins. */
export const addressLimit = 20

/** The failures of one key within the window: how many, and when the oldest of them was (epoch ms). */
export interface FailureCount {
  readonly count: number
  readonly oldest: number | null
}

/** The key under which an account's failures are counted (the normalised email, so unknown ones count too). */
export const accountKey = (email: string): string => `account:${email}`
/** The key under which an address's failures are counted. */
export const addressKey = (address: string): string => `address:${address}`

const waitFor = (failures: FailureCount, limit: number, now: number): number =>
  failures.count >= limit && failures.oldest !== null ? Math.max(1, failures.oldest + windowMillis - now) : 0

/**
 * How long (ms) until the next sign-in may be tried, 0 when it may be tried now: the account or the address
 * at its limit waits until its oldest counted failure leaves the window.
 */
export const retryAfterMillis = (
  failures: { readonly account: FailureCount; readonly address: FailureCount | null },
  now: number
): number =>
  Math.max(
    waitFor(failures.account, accountLimit, now),
    failures.address === null ? 0 : waitFor(failures.address, addressLimit, now)
  )
