/**
 * The contract as the client types it: the raw client `HttpApiClient.make` derives from it, the catalog
 * resources with their records and upsert bodies, and each endpoint's query and answer.
 */
import type {
  Api,
  Brand,
  Category,
  Collection,
  CustomizationGroup,
  CustomizationOption,
  CustomizationType,
  Import,
  Inventory,
  Product
} from "@catalog-sync/contract"
import type { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import type { HttpApiClient } from "effect/http-api"

/** The contract's client as `HttpApiClient.make` derives it: one method per endpoint, raw declared errors. */
export type RawClient = HttpApiClient.ForApi<typeof Api>

/** The catalog resources, by path name, and the contract group that serves each. */
export const catalogGroups = {
  products: "products",
  categories: "categories",
  collections: "collections",
  brands: "brands",
  "customization-types": "customizationTypes",
  "customization-groups": "customizationGroups",
  "customization-options": "customizationOptions"
} as const
/** The path name of a catalog resource (`products`, `categories`, ...). */
export type CatalogResource = keyof typeof catalogGroups

/**
 * Record and upsert body of each resource. The contract erases them (its groups are built generically
 * over core's resource definitions), so they are restored here from the very schemas the contract uses.
 */
export interface Schemas {
  products: { record: typeof Product.Product.Type; body: typeof Product.ProductUpsert.Encoded }
  categories: { record: typeof Category.Category.Type; body: typeof Category.CategoryUpsert.Encoded }
  collections: { record: typeof Collection.Collection.Type; body: typeof Collection.CollectionUpsert.Encoded }
  brands: { record: typeof Brand.Brand.Type; body: typeof Brand.BrandUpsert.Encoded }
  "customization-types": {
    record: typeof CustomizationType.CustomizationType.Type
    body: typeof CustomizationType.CustomizationTypeUpsert.Encoded
  }
  "customization-groups": {
    record: typeof CustomizationGroup.CustomizationGroup.Type
    body: typeof CustomizationGroup.CustomizationGroupUpsert.Encoded
  }
  "customization-options": {
    record: typeof CustomizationOption.CustomizationOption.Type
    body: typeof CustomizationOption.CustomizationOptionUpsert.Encoded
  }
}
/** A record of resource `R` as the API returns it. */
export type RecordOf<R extends CatalogResource> = Schemas[R]["record"]
/** The upsert body of resource `R`. */
export type BodyOf<R extends CatalogResource> = Schemas[R]["body"]

type Success<F> = F extends (...args: never) => Effect.Effect<infer A, unknown, unknown>
  ? Exclude<A, readonly [unknown, HttpClientResponse.HttpClientResponse] | HttpClientResponse.HttpClientResponse>
  : never
type Request<F> = F extends (request: infer Q) => unknown ? Q : never
type Group<R extends CatalogResource> = RawClient[(typeof catalogGroups)[R]]

/** Query of a catalog list (spec 4.1; products take more filters), as the contract declares it. */
export type ListQuery<R extends CatalogResource> = NonNullable<Request<Group<R>["list"]>["query"]>
type RawListPage = Success<RawClient["products"]["list"]>
/** A page of a catalog list: `change_cursor` is on the first page only. */
export type ListPage<R extends CatalogResource> = Omit<RawListPage, "records"> & {
  readonly records: ReadonlyArray<RecordOf<R>>
}
/** A page of a `mode=prices` list: identity and the price fields the key may read. */
export type PriceListPage = RawListPage
/** What an upsert or archive of resource `R` answers: the outcome and the record. */
export type WriteResult<R extends CatalogResource> = Omit<Success<RawClient["products"]["upsert"]>, "record"> & {
  readonly record: RecordOf<R>
}
/** The answer of GET /me. */
export type MeAnswer = Success<RawClient["me"]["me"]>
/** The caller as `GET /me` describes it: company, connection and scopes. */
export type Principal = MeAnswer["principal"]
/** The query of `GET /changes`. */
export type ChangesQuery = NonNullable<Request<RawClient["changes"]["changes"]>["query"]>
/** A page of the change feed. */
export type ChangesPage = Success<RawClient["changes"]["changes"]>
/** One change of the feed. */
export type Change = ChangesPage["records"][number]
/** The query of `GET /inventory`. */
export type InventoryQuery = NonNullable<Request<RawClient["inventory"]["list"]>["query"]>
/** A page of stock cards. */
export type InventoryPage = Success<RawClient["inventory"]["list"]>
/** What `POST /inventory` answers. */
export type StockWriteResult = Success<RawClient["inventory"]["write"]>
/** The body of `POST /inventory`. */
export type StockWrite = typeof Inventory.StockWrite.Encoded
/** The query of `GET /jobs`. */
export type JobsQuery = NonNullable<Request<RawClient["jobs"]["list"]>["query"]>
/** The query of `GET /media`. */
export type MediaQuery = NonNullable<Request<RawClient["media"]["list"]>["query"]>

/** The fields of a media upload besides the file; `purpose` defaults to catalog on the server. */
export interface MediaFields {
  readonly external_id: string
  readonly name: string
  readonly purpose?: "catalog" | "option" | undefined
}

/** Options of one logical write. */
export interface WriteOptions {
  /**
   * The write's Idempotency-Key. Omitted, a fresh one is made; it is reused on every automatic retry.
   * Pass your own to make a write safe to repeat across process restarts (e.g. derived from a source event id).
   */
  readonly idempotencyKey?: string
}

/** The body of POST /imports. */
export type ImportBody = Import.ImportBody
