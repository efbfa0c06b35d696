import type { HttpServerRequest } from "effect/http"
import { AddressNetwork } from "@catalog-sync/core"
import { Context, Option } from "effect"
import { BlockList, isIP } from "node:net"

/**
 * The last answers of a pure function of a header, by the header's text: every request of a connection
 * sends the same host and comes from the same address, and reading them costs a few regular expressions.
 * Bounded: a full table starts over.
 */
const remembered = (
  known: Map<string, string | undefined>,
  text: string,
  compute: (text: string) => string | undefined
): string | undefined => {
  if (known.has(text)) return known.get(text)
  const value = compute(text)
  if (known.size >= 1024) known.clear()
  known.set(text, value)
  return value
}
const hosts = new Map<string, string | undefined>()
const addresses = new Map<string, string | undefined>()

/**
 * The host name a request was sent to, in the one form custom domains are stored in: lower case,
 * without port, IPv6 brackets or the trailing dot of a fully qualified name (`API.Acme.example.:443`
 * is `api.acme.example`).
 */
export const normalizeHost = (host: string | undefined): string | undefined =>
  host === undefined ? undefined : remembered(hosts, host, hostOf)

const hostOf = (host: string): string | undefined => {
  let name = host.trim().toLowerCase()
  if (name.startsWith("[")) {
    const end = name.indexOf("]")
    name = end === -1 ? name.slice(1) : name.slice(1, end)
  } else if (name.indexOf(":") === name.lastIndexOf(":")) {
    // One colon at most: a name or IPv4 address with a port. Several: an IPv6 address sent bare.
    name = name.replace(/:\d*$/, "")
  }
  name = name.replace(/\.+$/, "")
  return name === "" ? undefined : name
}

/** An address as node and the Forwarded header write it, reduced to the bare IP (no port, brackets, quotes). */
export const normalizeAddress = (address: string | undefined): string | undefined =>
  address === undefined ? undefined : remembered(addresses, address, addressOf)

const addressOf = (address: string): string | undefined => {
  let value = address.trim().replace(/^"|"$/g, "")
  if (value.startsWith("[")) value = value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]"))
  else if (value.indexOf(":") === value.lastIndexOf(":")) value = value.replace(/:\d*$/, "")
  value = value.toLowerCase()
  // An IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(value)
  if (mapped !== null) value = mapped[1]!
  return isIP(value) === 0 ? undefined : value
}

/**
 * Which forwarding headers the trusted proxies set: `X-Forwarded-For` and `X-Forwarded-Host` (nginx's
 * usual set-up), or `Forwarded` (RFC 7239). Only that family is read: a proxy passes the other one through
 * from the client unchanged, so believing it would let the client choose its own host and address.
 */
export type ProxyHeaders = "x-forwarded" | "forwarded"

/** The forwarding header families a proxy may use: `X-Forwarded-*` or `Forwarded` (RFC 7239). */
export const proxyHeaderFamilies: ReadonlyArray<ProxyHeaders> = ["x-forwarded", "forwarded"]

/** The proxies whose forwarding headers are believed (none by default), and which headers those are. */
export interface ProxySettings {
  readonly list: BlockList | undefined
  readonly headers: ProxyHeaders
}

/** The proxies whose forwarding headers are believed (`TRUSTED_PROXIES`); none unless provided. */
export const TrustedProxies = Context.Reference<ProxySettings>("@catalog-sync/adapter-http/TrustedProxies", {
  defaultValue: () => ({ list: undefined, headers: "x-forwarded" })
})

/**
 * Parses `TRUSTED_PROXIES`: comma-separated IPv4/IPv6 addresses and CIDR ranges
 * (`10.0.0.0/8, 127.0.0.1, fd00::/8`). Throws on an entry that is neither.
 */
export const parseTrustedProxies = (text: string): BlockList | undefined => {
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
  if (entries.length === 0) return undefined
  const list = new BlockList()
  for (const entry of entries) {
    const [address, bits, extra] = entry.split("/")
    const family = isIP(address ?? "")
    const prefix = bits === undefined ? undefined : Number(bits)
    if (
      family === 0 ||
      extra !== undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 4 ? 32 : 128)))
    ) {
      throw new Error(`"${entry}" is not an IP address or CIDR range`)
    }
    const type = family === 4 ? "ipv4" : "ipv6"
    if (prefix === undefined) list.addAddress(address!, type)
    else list.addSubnet(address!, prefix, type)
  }
  return list
}

const trusts = (list: BlockList, address: string | undefined) =>
  address !== undefined && list.check(address, isIP(address) === 6 ? "ipv6" : "ipv4")

/** Whether the peer of `request` is one of the trusted proxies. */
export const fromTrustedProxy = (peer: string | undefined, proxies: ProxySettings) =>
  proxies.list !== undefined && trusts(proxies.list, normalizeAddress(peer))

/** Values of a list header (`a, b`), over repeated headers too. */
const listValues = (header: string | ReadonlyArray<string> | undefined): Array<string> =>
  (typeof header === "string" ? [header] : (header ?? []))
    .flatMap((value) => value.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "")

/** `Forwarded` (RFC 7239) as a list of elements, each a map of its lower-cased parameters. */
const forwardedElements = (header: string | undefined): Array<Map<string, string>> =>
  listValues(header).map(
    (element) =>
      new Map(
        element.split(";").flatMap((pair) => {
          const at = pair.indexOf("=")
          return at === -1
            ? []
            : [
                [
                  pair.slice(0, at).trim().toLowerCase(),
                  pair
                    .slice(at + 1)
                    .trim()
                    .replace(/^"|"$/g, "")
                ] as const
              ]
        })
      )
  )

/**
 * The host values a trusted proxy's headers of the configured family carry (every one of them, for a
 * check of their form): `X-Forwarded-Host`, or the `host=` parameters of `Forwarded`.
 */
export const forwardedHosts = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
  family: ProxyHeaders
) =>
  family === "forwarded"
    ? forwardedElements(headers["forwarded"] as string | undefined).flatMap((element) => {
        const host = element.get("host")
        return host === undefined ? [] : [host]
      })
    : listValues(headers["x-forwarded-host"])

/**
 * Whether a Host value has the form of `host[:port]` (RFC 9110 7.2): a DNS name or IPv4 address (letters,
 * digits, `-`, `.`, `_`), or an IPv6 literal in brackets, and a port of digits. Empty is allowed (a request
 * whose target has no authority). Anything else (`api.beta.example:abc`, `api.beta.example%2e`) names no
 * host the custom-domain rule could compare, and is refused rather than read as no domain at all.
 */
export const isValidHost = (host: string): boolean => /^(?:[A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\])(?::\d{0,5})?$/.test(host)

/** Where a request came from and which host it named, as the API's rules see them. */
export interface Origin {
  /** Normalized (see `normalizeHost`); undefined when no Host was sent. */
  readonly host: string | undefined
  /** The client's IP address; behind trusted proxies the nearest hop that is not a trusted proxy. */
  readonly address: string | undefined
}

/**
 * The request's origin. The Host header and the peer address, unless the peer is a trusted proxy: then
 * the headers of the configured family (`ProxyHeaders`) alone, read from the nearest hop backwards to the
 * first address that is not a trusted proxy (the rightmost untrusted one), which is the client.
 * - `x-forwarded`: the address from `X-Forwarded-For`, the host from the last `X-Forwarded-Host` value.
 * - `forwarded`: each element's `for=`; the host is the `host=` of the farthest element a trusted proxy
 *   wrote (the one naming the client: what the client asked the outermost proxy for).
 * Headers from any other peer, and the other family from any peer, are ignored, so a client can choose
 * neither its host nor its address.
 */
export const originOf = (request: HttpServerRequest.HttpServerRequest, proxies: ProxySettings): Origin => {
  const peer = normalizeAddress(Option.getOrUndefined(request.remoteAddress))
  const headers = request.headers
  const trusted = proxies.list
  if (trusted === undefined || !trusts(trusted, peer)) return { host: normalizeHost(headers["host"]), address: peer }
  let address = peer
  let host: string | undefined
  if (proxies.headers === "forwarded") {
    const elements = forwardedElements(headers["forwarded"])
    // Element i was written by the proxy at the address of element i + 1 (the last one by the peer), so
    // it is believed while every address after it is a trusted proxy.
    for (let i = elements.length - 1; i >= 0; i--) {
      const element = elements[i]!
      host = element.get("host") ?? host
      const hop = normalizeAddress(element.get("for"))
      if (hop === undefined) break
      address = hop
      if (!trusts(trusted, hop)) break
    }
  } else {
    const chain = listValues(headers["x-forwarded-for"])
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = normalizeAddress(chain[i])
      if (hop === undefined) break
      address = hop
      if (!trusts(trusted, hop)) break
    }
    host = listValues(headers["x-forwarded-host"]).at(-1)
  }
  return { host: normalizeHost(host ?? headers["host"]), address }
}

/**
 * The group an address is counted in by the failed-key throttle: an IPv4 address alone, an IPv6 address
 * by its /64 (one subscriber's network: a host there can use any of its 2^64 addresses).
 */
export const addressGroup = (address: string): string =>
  isIP(address) === 6 ? AddressNetwork.addressNetwork(address) : address
