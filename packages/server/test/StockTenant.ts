import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { idOf, str } from "./Json.js"
import { call, TestServer } from "./TestServer.js"

export const stockScopes = ["catalog:read", "catalog:write", "stock:read", "stock:write"]

/** A stock-enabled tenant with a product, an option and a writable, a read-only and an unassigned location. */
export const stockTenant = (flags: { readonly stock?: boolean } = {}) =>
  Effect.gen(function* () {
    const { url, admin, tenant } = yield* TestServer
    const enabled = flags.stock ?? true
    const t = yield* tenant({ stock_package: enabled, inventory_module: enabled })
    const [writable, readOnly, unassigned] = yield* Effect.all(
      [1, 2, 3].map((n) => admin.createLocation(t.companyId, `Warehouse ${n}`))
    )
    yield* admin.assignLocation(t.connectionId, writable!.id, true)
    yield* admin.assignLocation(t.connectionId, readOnly!.id, false)
    const token = yield* t.key(stockScopes)
    const post = (path: string, body: unknown) => call(url, "POST", path, { token, body })
    const category = yield* post("/categories/upsert", { external_id: "c", name: "C" })
    const product = yield* post("/products/upsert", {
      external_id: "p",
      name: "Sofa",
      category_ids: [idOf(category.body)],
      unit: "piece"
    })
    const type = yield* post("/customization-types/upsert", { external_id: "t", name: "Fabric" })
    const group = yield* post("/customization-groups/upsert", {
      external_id: "g",
      name: "Book",
      type_id: idOf(type.body)
    })
    const option = yield* post("/customization-options/upsert", {
      external_id: "o",
      name: "Blue",
      group_id: idOf(group.body)
    })
    expect([product.status, option.status]).toEqual([200, 200])
    return {
      ...t,
      url,
      token,
      productId: str(product.body, "record", "id"),
      optionId: str(option.body, "record", "id"),
      writable: writable!.id as string,
      readOnly: readOnly!.id as string,
      unassigned: unassigned!.id as string
    }
  })

export const stockWrite = (overrides: Record<string, unknown>) => ({
  event_id: globalThis.crypto.randomUUID(),
  source_kind: "product",
  source_id: { external_id: "p" },
  action: "set",
  quantity: "5",
  revision: 0,
  note: "stock count",
  ...overrides
})
