import { describe, expect, it } from "@effect/vitest"
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import fc from "fast-check"
import { normalizeAddress, normalizeHost, originOf, parseTrustedProxies } from "../src/ClientOrigin.js"

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

  it("forwarding headers count only from a trusted peer; the client is the first untrusted hop from the nearest", () => {
    const trusted = parseTrustedProxies("127.0.0.1, 10.0.0.0/8")
    const forwarded = {
      host: "internal:8080",
      "x-forwarded-host": "spoofed.example, shop.acme.example",
      "x-forwarded-for": "203.0.113.1, 198.51.100.7, 10.1.1.1"
    }
    expect(originOf(request("::ffff:127.0.0.1", forwarded), trusted)).toEqual({
      host: "shop.acme.example",
      address: "198.51.100.7"
    })
    expect(originOf(request("192.0.2.9", forwarded), trusted)).toEqual({ host: "internal", address: "192.0.2.9" })
    expect(originOf(request("127.0.0.1", forwarded), undefined)).toEqual({ host: "internal", address: "127.0.0.1" })
    const rfc = {
      host: "internal",
      forwarded: 'for=203.0.113.1;host=evil.example, for="[2001:db8::7]:4711";proto=https;host="Shop.Acme.Example."'
    }
    expect(originOf(request("10.0.0.2", rfc), trusted)).toEqual({ host: "shop.acme.example", address: "2001:db8::7" })
    // Only trusted hops: the farthest one is the client.
    expect(originOf(request("127.0.0.1", { "x-forwarded-for": "10.0.0.9" }), trusted).address).toBe("10.0.0.9")
  })
})
