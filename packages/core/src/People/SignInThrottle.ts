/**
 * The sign-in throttle's rules, apart from where the failures are counted: the `People` port counts them
 * in the database, so every instance sees the same numbers.
 *
 * Three counters, each with its limit in a sliding window: an account's failures from one address (the
 * guesses of one client at one account), an address's failures over every account (one client trying
 * many accounts), and an account's failures from every address (guesses spread over many clients). The
 * first is low and the last high, so a stranger's wrong passwords stop that stranger, not the account's
 * owner signing in from elsewhere.
 */
import { addressNetwork } from "../Shared/AddressNetwork.js"

export { addressNetwork } from "../Shared/AddressNetwork.js"

/** Failures older than this no longer count. */
export const windowMillis = 15 * 60_000
/** Failures of one account (by email, known or not) from one address in the window that stop them. */
export const accountFromAddressLimit = 10
/** Failures from one client address (any accounts) in the window that stop its sign-ins. */
export const addressLimit = 20
/** Failures of one account from every address in the window that stop its sign-ins from anywhere. */
export const accountLimit = 100

/** The failures of one key within the window: how many, and when the oldest of them was (epoch ms). */
export interface FailureCount {
  readonly count: number
  readonly oldest: number | null
}

/** The key under which an account's failures from every address are counted (the normalised email). */
export const accountKey = (email: string): string => `account:${email}`
/**
 * The start of the keys of an account's failures per address: `accountFromAddressKey(email, …)` all begin
 * with it, so an operator clears them together.
 */
export const accountFromAddressPrefix = (email: string): string => `${accountKey(email)}|`
/** The key under which an account's failures from one address's network are counted. */
export const accountFromAddressKey = (email: string, address: string | null): string =>
  `${accountFromAddressPrefix(email)}${address === null ? "unknown" : addressNetwork(address)}`
/** The key under which an address's failures are counted: its network (`addressNetwork`). */
export const addressKey = (address: string): string => `address:${addressNetwork(address)}`

/** What a counter stops when it is at its limit, as the audit log names it. */
export type CounterName = "account_from_address" | "address" | "account"

/** One counter a sign-in is checked against: its key and its limit. */
export interface Counter {
  readonly name: CounterName
  readonly key: string
  readonly limit: number
}

/** The counters of a sign-in of `email` from `address` (without an address, none of its own). */
export const countersOf = (email: string, address: string | null): ReadonlyArray<Counter> => [
  { name: "account_from_address", key: accountFromAddressKey(email, address), limit: accountFromAddressLimit },
  ...(address === null ? [] : [{ name: "address" as const, key: addressKey(address), limit: addressLimit }]),
  { name: "account", key: accountKey(email), limit: accountLimit }
]

/** A counter with its failures in the window. */
export interface Counted {
  readonly limit: number
  readonly failures: FailureCount
}

const waitFor = ({ failures, limit }: Counted, now: number): number =>
  failures.count >= limit && failures.oldest !== null ? Math.max(1, failures.oldest + windowMillis - now) : 0

/**
 * How long (ms) until the next sign-in may be tried, 0 when it may be tried now: a counter at its limit
 * waits until its oldest counted failure leaves the window.
 */
export const retryAfterMillis = (counted: ReadonlyArray<Counted>, now: number): number =>
  counted.reduce((wait, counter) => Math.max(wait, waitFor(counter, now)), 0)
