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
/**
 * The network an address's failures are counted for: an IPv4 address alone, an IPv6 address by its /64
 * (one subscriber's network, whose host may use any of its 2^64 addresses), as the API's failed-key
 * throttle groups them. Addresses reach it as a socket or a trusted proxy gives them.
 */
export const addressNetwork = (address: string): string => {
  if (!address.includes(":")) return address
  const [head = "", tail] = address.toLowerCase().split("::")
  const groups = (part: string) => (part === "" ? [] : part.split(":"))
  const first = groups(head)
  // An embedded IPv4 tail (`::ffff:192.0.2.1`) stands for the last two groups.
  const rest = groups(tail ?? "").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]))
  const full =
    tail === undefined
      ? first
      : [...first, ...Array<string>(Math.max(0, 8 - first.length - rest.length)).fill("0"), ...rest]
  return `${full
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`
}

/** The key under which an address's failures are counted: its network (`addressNetwork`). */
export const addressKey = (address: string): string => `address:${addressNetwork(address)}`

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
