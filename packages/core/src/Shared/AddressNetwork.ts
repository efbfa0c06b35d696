/**
 * The network a client address stands for when failures are counted against it: an IPv4 address alone,
 * an IPv6 address by its /64 (one subscriber's network, whose host may use any of its 2^64 addresses).
 * The API's failed-key throttle and the panel's sign-in throttle both count by it. Addresses reach it
 * as a socket or a trusted proxy gives them (without port or brackets).
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
