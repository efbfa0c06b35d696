import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import type { HttpServerRequest } from "effect/http"
import {
  addressGroup,
  isValidHost,
  normalizeAddress,
  normalizeHost,
  originOf,
  parseTrustedProxies
} from "../src/ClientOrigin.js"

const request = (peer: string, headers: Record<string, string>) =>
  ({ remoteAddress: Option.some(peer), headers }) as unknown as HttpServerRequest.HttpServerRequest

describe("client origin", () => {
  it("host names: one form whatever the case, port, brackets or trailing dot", () => {
    for (const host of [
      "api.acme.example",
      "API.Acme.Example",
      "api.acme.example.",
      "api.acme.example:443",
      "API.ACME.EXAMPLE.:8443",
      " api.acme.example "
    ]) {
      expect(normalizeHost(host)).toBe("api.acme.example")
    }
    expect(normalizeHost("[::1]:8080")).toBe("::1")
    expect(normalizeHost("[2001:DB8::1]")).toBe("2001:db8::1")
    expect(normalizeHost("127.0.0.1:80")).toBe("127.0.0.1")
    expect(normalizeHost("")).toBeUndefined()
    expect(normalizeHost(undefined)).toBeUndefined()
    fc.assert(
      fc.property(
        fc.domain(),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        fc.boolean(),
        (domain, port, dot) => {
          const sent = `${domain.toUpperCase()}${dot ? "." : ""}${port === undefined ? "" : `:${port}`}`
          expect(normalizeHost(sent)).toBe(domain.toLowerCase())
        }
      )
    )
  })

  it("addresses: IPv4-mapped, bracketed, with ports and quotes; anything else is no address", () => {
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1")
    expect(normalizeAddress('"[2001:db8::7]:4711"')).toBe("2001:db8::7")
    expect(normalizeAddress("198.51.100.7:5000")).toBe("198.51.100.7")
    expect(normalizeAddress("unknown")).toBeUndefined()
    expect(normalizeAddress("_hidden")).toBeUndefined()
  })

  it("trusted proxies: addresses and CIDR ranges of both families; a bad entry is refused", () => {
    const list = parseTrustedProxies("10.0.0.0/8, 127.0.0.1 ,fd00::/8")!
    expect(list.check("10.200.1.1", "ipv4")).toBe(true)
    expect(list.check("11.0.0.1", "ipv4")).toBe(false)
    expect(list.check("fd12::1", "ipv6")).toBe(true)
    expect(parseTrustedProxies(" ")).toBeUndefined()
    for (const bad of ["10.0.0.0/33", "example.com", "1.2.3.4/8/1", "::1/129"])
      expect(() => parseTrustedProxies(bad)).toThrow()
  })

  it("forwarding headers count only from a trusted peer; the client is the rightmost untrusted hop", () => {
    const list = parseTrustedProxies("127.0.0.1, 10.0.0.0/8")
    const proxies = { list, headers: "x-forwarded" } as const
    const forwarded = {
      host: "internal:8080",
      "x-forwarded-host": "spoofed.example, shop.acme.example",
      "x-forwarded-for": "203.0.113.1, 198.51.100.7, 10.1.1.1"
    }
    expect(originOf(request("::ffff:127.0.0.1", forwarded), proxies)).toEqual({
      host: "shop.acme.example",
      address: "198.51.100.7"
    })
    expect(originOf(request("192.0.2.9", forwarded), proxies)).toEqual({ host: "internal", address: "192.0.2.9" })
    const none = { list: undefined, headers: "x-forwarded" } as const
    expect(originOf(request("127.0.0.1", forwarded), none)).toEqual({ host: "internal", address: "127.0.0.1" })
    // Only trusted hops: the farthest one is the client.
    expect(originOf(request("127.0.0.1", { "x-forwarded-for": "10.0.0.9" }), proxies).address).toBe("10.0.0.9")
  })

  it("only the configured family counts: a Forwarded header the proxy passed through changes neither host nor address", () => {
    const list = parseTrustedProxies("127.0.0.1, 10.0.0.0/8")
    // What nginx set up as docs/deploy.md says sends: its own X-Forwarded-*, the client's Forwarded as it came.
    const nginx = {
      host: "internal",
      "x-forwarded-host": "shop.acme.example",
      "x-forwarded-for": "198.51.100.7",
      forwarded: "for=192.0.2.66;host=anything.example"
    }
    expect(originOf(request("127.0.0.1", nginx), { list, headers: "x-forwarded" })).toEqual({
      host: "shop.acme.example",
      address: "198.51.100.7"
    })
    // A client's own X-Forwarded-For ahead of the proxy's: the proxy appended the real peer.
    expect(
      originOf(request("127.0.0.1", { ...nginx, "x-forwarded-for": "10.0.0.1, 192.0.2.66, 198.51.100.7" }), {
        list,
        headers: "x-forwarded"
      }).address
    ).toBe("198.51.100.7")

    const rfc = {
      host: "internal",
      "x-forwarded-host": "evil.example",
      "x-forwarded-for": "192.0.2.66",
      forwarded: 'for=203.0.113.1;host=evil.example, for="[2001:db8::7]:4711";proto=https;host="Shop.Acme.Example."'
    }
    expect(originOf(request("10.0.0.2", rfc), { list, headers: "forwarded" })).toEqual({
      host: "shop.acme.example",
      address: "2001:db8::7"
    })
    // Behind two trusted proxies, the outer one's element names the client and the host it asked for.
    const twoProxies = { forwarded: "for=198.51.100.7;host=shop.acme.example, for=10.0.0.3;host=inner.internal" }
    expect(originOf(request("10.0.0.2", twoProxies), { list, headers: "forwarded" })).toEqual({
      host: "shop.acme.example",
      address: "198.51.100.7"
    })
  })

  it("the throttle counts an IPv4 address alone and an IPv6 address by its /64", () => {
    expect(addressGroup("198.51.100.7")).toBe("198.51.100.7")
    expect(addressGroup("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64")
    expect(addressGroup("2001:db8:1:2::9")).toBe("2001:db8:1:2::/64")
    expect(addressGroup("2001:db8::1")).toBe("2001:db8:0:0::/64")
    expect(addressGroup("2001:0db8:0000:0000:ffff::1")).toBe("2001:db8:0:0::/64")
    expect(addressGroup("::1")).toBe("0:0:0:0::/64")
    expect(addressGroup("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64")
    // Two addresses in one /64 (the second's interface half is any), or apart by one bit of the prefix;
    // written in any of their forms (compressed by the URL parser, or in full).
    const written = (bytes: Uint8Array, compress: boolean) => {
      const full = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(
        ":"
      )
      return compress ? new URL(`http://[${full}]/`).hostname.slice(1, -1) : full
    }
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 8, maxLength: 8 }),
        fc.option(fc.integer({ min: 0, max: 63 }), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        (first, otherHalf, flipped, compressA, compressB) => {
          const second = Uint8Array.from([...first.slice(0, 8), ...otherHalf])
          if (flipped !== undefined) second[flipped >> 3] = second[flipped >> 3]! ^ (0x80 >> (flipped & 7))
          const a = normalizeAddress(written(first, compressA))!
          const b = normalizeAddress(written(second, compressB))!
          // IPv4-mapped addresses count as their IPv4 address (above).
          fc.pre(a.includes(":") && b.includes(":"))
          expect(addressGroup(a) === addressGroup(b)).toBe(flipped === undefined)
        }
      )
    )
  })

  it("a Host is host[:port]: a name, an IPv4 address or a bracketed IPv6 literal, and digits", () => {
    for (const good of [
      "api.acme.example",
      "API.acme.example.:8443",
      "127.0.0.1:80",
      "[::1]:8080",
      "[2001:db8::1]",
      "a_b.internal",
      ""
    ])
      expect({ good, valid: isValidHost(good) }).toEqual({ good, valid: true })
    for (const bad of [
      "api.beta.example:abc",
      "api.beta.example%2e",
      "a b",
      "api.example/x",
      "user@api.example",
      "api.example:80:80",
      "[::1",
      "::1"
    ])
      expect({ bad, valid: isValidHost(bad) }).toEqual({ bad, valid: false })
  })
})
