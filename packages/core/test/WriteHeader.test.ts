import { Decode } from "@catalog-sync/core"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { type UpsertBody, writeHeader } from "../src/internal/Catalog/WriteHeader.js"

const decoded = (resource: "products" | "categories", body: unknown): UpsertBody =>
  Result.getOrThrow(Decode.decodeUpsert(resource, body))

describe("the write header: an upsert's common fields, read once from its decoded body", () => {
  it("takes each common field as decoded, catalog mode when none is sent", () => {
    expect(writeHeader(decoded("categories", { external_id: "sofas", name: "Sofas" }))).toEqual({
      externalId: "sofas",
      targetId: undefined,
      expectedRevision: undefined,
      mode: "catalog",
      currency: undefined
    })
    const target = "0198C1F2-0000-7000-8000-00000000000A"
    expect(
      writeHeader(
        decoded("products", {
          external_id: "p1",
          target_id: target,
          expected_revision: 0,
          mode: "prices",
          currency: "EUR",
          price: "10.00"
        })
      )
    ).toEqual({
      externalId: "p1",
      // As the body's schema decodes a uuid: lowercase.
      targetId: target.toLowerCase(),
      expectedRevision: 0,
      mode: "prices",
      currency: "EUR"
    })
  })

  it("is typed by the body's schema: an upsert body without its external_id does not compile", () => {
    const undecoded: Readonly<Record<string, unknown>> = { name: "Sofas" }
    // @ts-expect-error a body the resource's schema did not decode has no typed external_id
    expect(() => writeHeader(undecoded)).not.toThrow()
    const header = writeHeader(decoded("categories", { external_id: "sofas", name: "Sofas", mode: "combined" }))
    const mode: "catalog" | "prices" | "combined" = header.mode
    expect(mode).toBe("combined")
  })
})
