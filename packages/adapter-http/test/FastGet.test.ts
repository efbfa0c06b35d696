import type { HttpServerRequest } from "@effect/platform"
import type { CatalogService } from "@catalog-sync/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fastGet } from "../src/Catalog/FastGet.js"
import { countingAdmission, currentConnection } from "./countingAdmission.js"

const id = "0190AAAA-0000-7000-8000-00000000000F"

/** The fast path over a use case and an admission that write down what they were asked. */
const setUp = () => {
  const asked = { admitted: 0, reads: [] as Array<readonly [string, string, string]> }
  const catalog = {
    get: (resource: string, recordId: string) =>
      Effect.map(currentConnection, (connection) => {
        asked.reads.push([resource, recordId, connection])
        return { id: recordId, resource }
      })
  } as unknown as CatalogService.CatalogService
  return { asked, answer: fastGet(catalog, countingAdmission(asked)) }
}

const request = (method: string, url: string) => ({ method, url, headers: {} }) as HttpServerRequest.HttpServerRequest

describe("GET by id outside the router", () => {
  it.effect("answers a catalog record's exact path: one admission, the use case with the lowercased id", () =>
    Effect.gen(function* () {
      const { asked, answer } = setUp()
      for (const resource of ["products", "customization-options"]) {
        const served = answer(request("GET", `/api/v1/${resource}/${id}`))
        expect(served).toBeDefined()
        const response = yield* served!
        expect(response.status).toBe(200)
        const body = response.body as unknown as { readonly _tag: string; readonly body: Uint8Array }
        expect(JSON.parse(new TextDecoder().decode(body.body))).toEqual({
          request_id: "",
          record: { id: id.toLowerCase(), resource }
        })
      }
      expect(asked.admitted).toBe(2)
      expect(asked.reads).toEqual([
        ["products", id.toLowerCase(), "the-connection"],
        ["customization-options", id.toLowerCase(), "the-connection"]
      ])
    })
  )

  it("leaves anything else to the router", () => {
    const { asked, answer } = setUp()
    for (const [method, url] of [
      ["POST", `/api/v1/products/${id}`],
      ["HEAD", `/api/v1/products/${id}`],
      ["GET", `/api/v1/products/${id}?`],
      ["GET", `/api/v1/products/${id}?limit=1`],
      ["GET", `/api/v1/products/${id}/`],
      ["GET", `/api/v1/products/${id.slice(0, -1)}`],
      ["GET", `/api/v1/products/%30${id.slice(1)}`],
      ["GET", `/api/v1/jobs/${id}`],
      ["GET", `/api/v1/media/${id}`],
      ["GET", `/api/v2/products/${id}`],
      ["GET", `//api/v1/products/${id}`],
      ["GET", `/api/v1/products`]
    ] as const) {
      expect([method, url, answer(request(method, url))]).toEqual([method, url, undefined])
    }
    expect(asked.admitted).toBe(0)
  })
})
