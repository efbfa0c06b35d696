import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import * as RouteTable from "../src/RouteTable.js"
import { operationOf } from "../src/Writes.js"
import { prop } from "./props.js"

const table = RouteTable.make()
const writes = table.routes.filter((route) => route.endpoint.method !== "GET")

/** An id as clients send it, and the same id with one of its characters percent-escaped. */
const anId = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/)
const escapeOne = (id: string, at: number) => {
  const i = at % id.length
  return `${id.slice(0, i)}%${id.charCodeAt(i).toString(16).toUpperCase().padStart(2, "0")}${id.slice(i + 1)}`
}

describe("a write's operation (the Idempotency-Key fingerprint's)", () => {
  prop(
    "is one for every spelling the router takes of one endpoint and id, and the path as declared",
    [fc.constantFrom(...writes), anId, fc.nat(), fc.constantFrom("upper", "trailing", "double", "escaped", "query")],
    ([route, id, at, spelling]) => {
      const declared = route.template.replace(":id", id)
      const spelled =
        spelling === "upper"
          ? route.template.toUpperCase().replace(":ID", id)
          : spelling === "trailing"
            ? `${declared}/`
            : spelling === "double"
              ? declared.replace("/api/", "/api//")
              : spelling === "escaped"
                ? route.template.replace(":id", escapeOne(id, at))
                : `${declared}?x=1`
      const method = route.endpoint.method
      expect(operationOf(table, method, spelled)).toBe(`${method} ${declared}`)
    }
  )

  prop(
    "differs for another id or another endpoint",
    [fc.constantFrom(...writes.filter((route) => route.template.includes(":id"))), anId, anId],
    ([route, a, b]) => {
      fc.pre(a !== b)
      const method = route.endpoint.method
      expect(operationOf(table, method, route.template.replace(":id", a))).not.toBe(
        operationOf(table, method, route.template.replace(":id", b))
      )
    }
  )

  prop(
    "is one for a uuid in any letter case, the lowercase form every id is compared in",
    [fc.constantFrom(...writes.filter((route) => route.template.includes(":id"))), fc.uuid(), fc.array(fc.boolean())],
    ([route, id, upper]) => {
      const spelled = [...id].map((c, i) => (upper[i % Math.max(1, upper.length)] ? c.toUpperCase() : c)).join("")
      const method = route.endpoint.method
      expect(operationOf(table, method, route.template.replace(":id", spelled))).toBe(
        `${method} ${route.template.replace(":id", id.toLowerCase())}`
      )
    }
  )

  it("keeps a character a path segment cannot hold escaped, so that two ids never meet", () => {
    const archive = writes.find((route) => route.template === "/api/v1/products/:id")!
    expect(operationOf(table, "DELETE", "/api/v1/products/a%2Fb")).toBe("DELETE /api/v1/products/a%2Fb")
    expect(operationOf(table, "DELETE", "/api/v1/products/a%2Fb")).not.toBe(
      operationOf(table, archive.endpoint.method, "/api/v1/products/a")
    )
  })
})
