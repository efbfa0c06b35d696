import type { HttpServerRequest } from "@effect/platform"
import type { ChangeFeed } from "@catalog-sync/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fastPoll } from "../src/Changes/FastPoll.js"
import { countingAdmission, currentConnection } from "./countingAdmission.js"

/** The fast path over a feed and an admission that write down what they were asked. */
const setUp = () => {
  const asked = { admitted: 0, reads: [] as Array<readonly [ChangeFeed.FeedParams, string]> }
  const feed = {
    read: (params: ChangeFeed.FeedParams) =>
      Effect.map(currentConnection, (connection) => {
        asked.reads.push([params, connection])
        return { records: [], next_cursor: params.cursor, has_more: false }
      })
  } as unknown as ChangeFeed.ChangeFeed
  return { asked, answer: fastPoll(feed, countingAdmission(asked)) }
}

const request = (method: string, url: string) => ({ method, url, headers: {} }) as HttpServerRequest.HttpServerRequest

// Both forms of cursor: the company's own positions (`c2_`) and the former global ones (`c1_`).
const cursors = ["c2_0", "c2_2bq", "c2_zzzzzzzzzzzz", "c1_0", "c1_2bq"]

describe("the feed poll outside the router", () => {
  it.effect("answers a poll whose only parameter is a cursor: one admission, the feed at the default limit", () =>
    Effect.gen(function* () {
      const { asked, answer } = setUp()
      for (const cursor of cursors) {
        const served = answer(request("GET", `/api/v1/changes?cursor=${cursor}`))
        expect(served).toBeDefined()
        const response = yield* served!
        expect(response.status).toBe(200)
        const body = response.body as unknown as { readonly body: Uint8Array }
        expect(JSON.parse(new TextDecoder().decode(body.body))).toEqual({
          request_id: "",
          records: [],
          next_cursor: cursor,
          has_more: false
        })
      }
      expect(asked.admitted).toBe(cursors.length)
      expect(asked.reads).toEqual(cursors.map((cursor) => [{ cursor, limit: 50 }, "the-connection"]))
    })
  )

  it("leaves anything else to the router", () => {
    const { asked, answer } = setUp()
    for (const [method, url] of [
      ["POST", "/api/v1/changes?cursor=c2_0"],
      ["HEAD", "/api/v1/changes?cursor=c2_0"],
      ["GET", "/api/v1/changes"],
      ["GET", "/api/v1/changes?"],
      ["GET", "/api/v1/changes?cursor="],
      ["GET", "/api/v1/changes?cursor=c2_0&"],
      ["GET", "/api/v1/changes?cursor=c2_0&limit=5"],
      ["GET", "/api/v1/changes?limit=5&cursor=c2_0"],
      ["GET", "/api/v1/changes?cursor=c2_0&resource=products"],
      ["GET", "/api/v1/changes?cursor=C2_0"],
      ["GET", "/api/v1/changes?cursor=c3_0"],
      ["GET", "/api/v1/changes?cursor=c0_0"],
      ["GET", "/api/v1/changes?cursor=c2_%30"],
      ["GET", "/api/v1/changes?cursor=c2_0000000000000"],
      ["GET", "/api/v1/changes/?cursor=c2_0"],
      ["GET", "//api/v1/changes?cursor=c2_0"],
      ["GET", "/api/v2/changes?cursor=c2_0"]
    ] as const) {
      expect([method, url, answer(request(method, url))]).toEqual([method, url, undefined])
    }
    expect(asked.admitted).toBe(0)
  })
})
