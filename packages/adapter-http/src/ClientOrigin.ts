import type { HttpServerRequest } from "@effect/platform"
import { Context, Option } from "effect"
import { BlockList, isIP } from "node:net"

/**
 * The host name a request was sent to, in the one form custom domains are stored in: lower case,
 * without port, IPv6 brackets or the trailing dot of a fully qualified name (`API.Acme.example.:443`
 * is `api.acme.example`).
 */
export const normalizeHost = (host: string | undefined): string | undefined => {
  if (host === undefined) return undefined
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
export const normalizeAddress = (address: string | undefined): string | undefined => {
  if (address === undefined) return undefined
  let value = address.trim().replace(/^"|"$/g, "")
  if (value.startsWith("[")) value = value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]"))
  else if (value.indexOf(":") === value.lastIndexOf(":")) value = value.replace(/:\d*$/, "")
  value = value.toLowerCase()
  // An IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(value)
  if (mapped !== null) value = mapped[1]!
  return isIP(value) === 0 ? undefined : value
}

/** The proxies whose X-Forwarded-* and Forwarded headers are believed (none by default). */
export class TrustedProxies extends Context.Reference<TrustedProxies>()("@catalog-sync/adapter-http/TrustedProxies", {
  defaultValue: (): { readonly list: BlockList | undefined } => ({ list: undefined })
}) {}

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

/** Where a request came from and which host it named, as the API's rules see them. */
export interface Origin {
  /** Normalized (see `normalizeHost`); undefined when no Host was sent. */
  readonly host: string | undefined
  /** The client's IP address; behind trusted proxies the first one that is not a trusted proxy. */
  readonly address: string | undefined
}

/**
 * The request's origin. The Host header and the peer address, unless the peer is a trusted proxy:
 * then the host of the nearest proxy's `Forwarded: host=` (else `X-Forwarded-Host`) and, reading the
 * forwarded-for chain from the nearest hop backwards, the first address that is not a trusted proxy.
 * Headers from any other peer are ignored, so a client cannot choose its own origin.
 */
export const originOf = (request: HttpServerRequest.HttpServerRequest, trusted: BlockList | undefined): Origin => {
  const peer = normalizeAddress(Option.getOrUndefined(request.remoteAddress))
  const headers = request.headers
  if (trusted === undefined || !trusts(trusted, peer)) return { host: normalizeHost(headers["host"]), address: peer }
  const forwarded = forwardedElements(headers["forwarded"])
  const chain =
    forwarded.length > 0 ? forwarded.map((element) => element.get("for")) : listValues(headers["x-forwarded-for"])
  let address = peer
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(chain[i])
    if (hop === undefined) break
    address = hop
    if (!trusts(trusted, hop)) break
  }
  const forwardedHost =
    forwarded.length > 0 ? forwarded[forwarded.length - 1]!.get("host") : listValues(headers["x-forwarded-host"]).at(-1)
  return { host: normalizeHost(forwardedHost ?? headers["host"]), address }
}
