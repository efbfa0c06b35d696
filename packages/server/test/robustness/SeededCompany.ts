/**
 * A company with one record of every kind the API serves, made through the API itself: catalog records
 * (mapped by its first connection), a stock card at a writable location, a completed media item, a
 * failed (retryable) import job and the change cursors to page them.
 */
import { Resource, Scope } from "@catalog-sync/core"
import { Effect } from "effect"
import sharp from "sharp"
import { idOf, jobOf, num, str } from "../Json.js"
import { call, freshKey, TestServer, uploadMedia, waitJob } from "../TestServer.js"

export { uploadMedia, waitJob }

export const allScopes: ReadonlyArray<string> = Scope.Scope.literals

export const catalogResources = Resource.ResourceName.literals
export type CatalogResource = Resource.ResourceName

export interface SeededCompany {
  readonly url: string
  readonly companyId: string
  readonly connectionId: string
  /** An all-scopes key of the first connection. */
  readonly token: string
  readonly newKey: (scopes?: ReadonlyArray<string>, connectionId?: string) => Effect.Effect<string, unknown>
  readonly newConnection: Effect.Effect<string, unknown>
  /** The record id of every catalog resource. */
  readonly records: Record<CatalogResource, string>
  /** The first connection's external_id of every catalog resource (unique to this company). */
  readonly externalIds: Record<CatalogResource, string>
  readonly productRevision: number
  readonly cardId: string
  readonly locationId: string
  readonly mediaId: string
  readonly mediaExternalId: string
  readonly mediaJobId: string
  readonly importJobId: string
  /** A change-feed cursor after the company's first change, and the first list's change_cursor. */
  readonly changeCursor: string
  readonly listChangeCursor: string
  /** An Idempotency-Key the first connection used, with the request it used it for. */
  readonly usedIdempotency: { readonly key: string; readonly path: string; readonly body: unknown }
}

export const pngImage = Effect.promise(
  async () =>
    new Uint8Array(
      await sharp({ create: { width: 4, height: 3, channels: 3, background: { r: 10, g: 120, b: 200 } } })
        .png()
        .toBuffer()
    )
)

const expectOk = (what: string, reply: { status: number; text: string }, status = 200) =>
  reply.status === status
    ? Effect.void
    : Effect.die(new Error(`seeding ${what}: ${reply.status} ${reply.text.slice(0, 300)}`))

/** `tag` makes the company's external ids and names unique, so a leak of them is recognisable. */
export const seedCompany = (tag: string) =>
  Effect.gen(function* () {
    const { url, admin, tenant } = yield* TestServer
    const t = yield* tenant({ stock_package: true, inventory_module: true })
    const location = yield* admin.createLocation(t.companyId, `${tag} warehouse`)
    yield* admin.assignLocation(t.connectionId, location.id, true)
    const token = yield* t.key(allScopes)
    const ext = (resource: string) => `${tag}-${resource}-ext`
    const post = (path: string, body: unknown) => call(url, "POST", path, { token, body })
    const records = {} as Record<CatalogResource, string>
    const upsert = (resource: CatalogResource, body: Record<string, unknown>) =>
      Effect.gen(function* () {
        const reply = yield* post(`/${resource}/upsert`, {
          external_id: ext(resource),
          name: `${tag} ${resource}`,
          ...body
        })
        yield* expectOk(`${resource}`, reply)
        records[resource] = idOf(reply.body)
        return reply
      })
    const firstList = yield* call(url, "GET", "/products", { token })
    yield* upsert("categories", {})
    yield* upsert("collections", {})
    yield* upsert("brands", {})
    yield* upsert("customization-types", {})
    yield* upsert("customization-groups", { type_id: records["customization-types"] })
    yield* upsert("customization-options", { group_id: records["customization-groups"] })
    const idempotencyKey = freshKey()
    const productBody = {
      external_id: ext("products"),
      name: `${tag} products`,
      category_ids: [records.categories],
      collection_id: records.collections,
      brand_id: records.brands,
      unit: "piece"
    }
    const product = yield* call(url, "POST", "/products/upsert", { token, body: productBody, idempotencyKey })
    yield* expectOk("product", product)
    records.products = idOf(product.body)
    const stock = yield* post("/inventory", {
      event_id: globalThis.crypto.randomUUID(),
      source_kind: "product",
      source_id: records.products,
      location_id: location.id,
      action: "set",
      quantity: "3",
      revision: 0,
      note: `${tag} count`
    })
    yield* expectOk("stock", stock)
    const media = yield* uploadMedia(
      url,
      token,
      { external_id: `${tag}-media-ext`, name: `${tag} picture`, purpose: "catalog" },
      yield* pngImage
    )
    yield* expectOk("media", { status: media.status, text: media.text }, 202)
    yield* waitJob(url, token, jobOf(media.body).id)
    const mediaList = yield* call(url, "GET", `/media?external_id=${encodeURIComponent(`${tag}-media-ext`)}`, { token })
    const imported = yield* post("/imports", {
      records: [
        {
          resource: "products",
          body: { external_id: `${tag}-import-ext`, name: "x", category_ids: [{ external_id: `${tag}-missing` }] }
        }
      ]
    })
    yield* expectOk("import", imported, 202)
    yield* waitJob(url, token, str(imported.body, "job", "id"))
    const changes = yield* call(url, "GET", "/changes?limit=1", { token })
    yield* expectOk("changes", changes)
    return {
      url,
      companyId: t.companyId,
      connectionId: t.connectionId,
      token,
      newKey: (scopes: ReadonlyArray<string> = allScopes, connectionId?: string) =>
        t.key(scopes, connectionId === undefined ? {} : { connectionId }),
      newConnection: t.newConnection,
      records,
      externalIds: Object.fromEntries(Object.keys(records).map((resource) => [resource, ext(resource)])) as Record<
        CatalogResource,
        string
      >,
      productRevision: num(product.body, "record", "revision"),
      cardId: str(stock.body, "record", "id"),
      locationId: location.id as string,
      mediaId: str(mediaList.body, "records", 0, "id"),
      mediaExternalId: `${tag}-media-ext`,
      mediaJobId: jobOf(media.body).id,
      importJobId: str(imported.body, "job", "id"),
      changeCursor: str(changes.body, "next_cursor"),
      listChangeCursor: str(firstList.body, "change_cursor"),
      usedIdempotency: { key: idempotencyKey, path: "/products/upsert", body: productBody }
    } satisfies SeededCompany
  })
