/**
 * The documented column mapping of product and category CSV files to upsert bodies (docs/bulk-load.md).
 * An empty cell leaves its field out; references are external ids of the same load; lists are separated
 * by `|`. Unknown columns are refused at the header, so a misspelt column never drops data silently.
 */
import { Result } from "effect"

export type CsvResource = "products" | "categories"
export const csvResources: ReadonlyArray<CsvResource> = ["products", "categories"]

/** A source header renamed to one of our columns, or `null` to ignore that column. */
export type HeaderMap = Readonly<Record<string, string | null>>

export interface MappedRow {
  readonly body: Record<string, unknown>
  /** Image file paths as the row wrote them, in order (the first is the cover). */
  readonly images: ReadonlyArray<string>
}

export interface MappingOptions {
  readonly headerMap?: HeaderMap
  /** The media external_id of an image path of the row. */
  readonly imageId: (path: string) => string
}

/** Columns of both resources; `name.<lang>` and `description.<lang>` are translations. */
const common = ["external_id", "name", "description"] as const
const categoryColumns = [...common, "parent", "image"] as const
const productColumns = [
  ...common,
  "sku",
  "kind",
  "active",
  "unit",
  "categories",
  "collection",
  "brand",
  "width",
  "height",
  "depth",
  "weight",
  "volume",
  "price",
  "market_price",
  "cost",
  "tax_rate",
  "images",
  "components"
] as const
export const columns: Readonly<Record<CsvResource, ReadonlyArray<string>>> = {
  categories: categoryColumns,
  products: productColumns
}

const dimensionColumns = ["width", "height", "depth", "weight", "volume"] as const
const priceColumns = ["price", "market_price", "cost", "tax_rate"] as const
const translated = /^(name|description)\.([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})?)$/

const list = (value: string): Array<string> =>
  value
    .split("|")
    .map((item) => item.trim())
    .filter((item) => item !== "")

/** A decimal as spreadsheets in many locales write it (`12,5`) becomes `12.5`; anything else is left to the server. */
export const decimal = (value: string): string => {
  const trimmed = value.replace(/\s+/g, "")
  return /^\d+,\d+$/.test(trimmed) ? trimmed.replace(",", ".") : trimmed
}

const booleans: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  y: true,
  n: false,
  "1": true,
  "0": false
}

/** Why a row could not be mapped (reported as `invalid_input` at the row's line). */
export interface RowError {
  readonly path: string
  readonly message: string
}

/** Maps the rows of one file, after its header was checked. */
export type RowMapper = (fields: ReadonlyArray<string>) => Result.Result<MappedRow, RowError>

/**
 * Checks the header of a CSV file of `resource` and returns the mapper of its rows, or the header's
 * problem (unknown or repeated columns, no `external_id`).
 */
export const mapper = (
  resource: CsvResource,
  header: ReadonlyArray<string>,
  options: MappingOptions
): Result.Result<RowMapper, string> => {
  const known = new Set(columns[resource])
  const names: Array<string | null> = []
  const unknown: Array<string> = []
  for (const raw of header) {
    const source = raw.trim()
    const renamed =
      options.headerMap !== undefined && Object.hasOwn(options.headerMap, source) ? options.headerMap[source]! : source
    if (renamed !== null && !known.has(renamed) && !translated.test(renamed)) unknown.push(source)
    names.push(renamed)
  }
  if (unknown.length > 0) {
    return Result.fail(
      `unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => JSON.stringify(u)).join(", ")} for ${resource}; ` +
        `known: ${columns[resource].join(", ")}, name.<lang>, description.<lang> (map or ignore source columns with --csv-columns)`
    )
  }
  const used = names.filter((n): n is string => n !== null)
  const repeated = used.filter((n, i) => used.indexOf(n) !== i)
  if (repeated.length > 0) return Result.fail(`column ${JSON.stringify(repeated[0])} appears twice`)
  if (!used.includes("external_id")) return Result.fail(`an external_id column is required for ${resource}`)

  return Result.succeed((fields: ReadonlyArray<string>) => {
    if (fields.length > names.length)
      return Result.fail({ path: "$", message: `the row has ${fields.length} fields, the header ${names.length}` })
    const cells = new Map<string, string>()
    names.forEach((name, i) => {
      const value = (fields[i] ?? "").trim()
      if (name !== null && value !== "") cells.set(name, value)
    })
    return resource === "categories" ? category(cells, options) : product(cells, options)
  })
}

const translations = (cells: ReadonlyMap<string, string>): Record<string, Record<string, string>> | undefined => {
  const out: Record<string, Record<string, string>> = {}
  for (const [name, value] of cells) {
    const match = translated.exec(name)
    if (match === null) continue
    ;(out[match[2]!] ??= {})[match[1]!] = value
  }
  return Object.keys(out).length === 0 ? undefined : out
}

const ref = (externalId: string) => ({ external_id: externalId })

const category = (cells: ReadonlyMap<string, string>, options: MappingOptions): Result.Result<MappedRow, RowError> => {
  const externalId = cells.get("external_id")
  if (externalId === undefined) return Result.fail({ path: "$.external_id", message: "external_id is empty" })
  const body: Record<string, unknown> = { external_id: externalId }
  const set = (field: string, value: unknown) => void (value === undefined ? undefined : (body[field] = value))
  set("name", cells.get("name"))
  set("description", cells.get("description"))
  const parent = cells.get("parent")
  set("parent_id", parent === undefined ? undefined : ref(parent))
  const image = cells.get("image")
  set("image_id", image === undefined ? undefined : ref(options.imageId(image)))
  set("translations", translations(cells))
  return Result.succeed({ body, images: image === undefined ? [] : [image] })
}

const product = (cells: ReadonlyMap<string, string>, options: MappingOptions): Result.Result<MappedRow, RowError> => {
  const externalId = cells.get("external_id")
  if (externalId === undefined) return Result.fail({ path: "$.external_id", message: "external_id is empty" })
  const body: Record<string, unknown> = { external_id: externalId }
  const set = (field: string, value: unknown) => void (value === undefined ? undefined : (body[field] = value))
  set("name", cells.get("name"))
  set("sku", cells.get("sku"))
  set("kind", cells.get("kind"))
  set("unit", cells.get("unit"))
  const active = cells.get("active")
  if (active !== undefined) {
    const flag = booleans[active.toLowerCase()]
    if (flag === undefined)
      return Result.fail({
        path: "$.active",
        message: `active must be true or false (also yes/no, 1/0), not ${JSON.stringify(active)}`
      })
    body.active = flag
  }
  const categories = cells.get("categories")
  set("category_ids", categories === undefined ? undefined : list(categories).map(ref))
  const collection = cells.get("collection")
  set("collection_id", collection === undefined ? undefined : ref(collection))
  const brand = cells.get("brand")
  set("brand_id", brand === undefined ? undefined : ref(brand))

  const details: Record<string, string> = {}
  const description = cells.get("description")
  if (description !== undefined) details.description = description
  for (const column of dimensionColumns) {
    const value = cells.get(column)
    if (value !== undefined) details[column] = decimal(value)
  }
  if (Object.keys(details).length > 0) body.details = details

  const components = cells.get("components")
  if (components !== undefined) {
    const parsed: Array<{ product_id: { external_id: string }; quantity: number }> = []
    for (const item of list(components)) {
      const at = item.lastIndexOf("=")
      const quantity = at === -1 ? "1" : item.slice(at + 1).trim()
      if (!/^\d{1,9}$/.test(quantity)) {
        return Result.fail({
          path: "$.components",
          message: `components are external_id=quantity, separated by |; ${JSON.stringify(item)} has no whole quantity`
        })
      }
      parsed.push({ product_id: ref((at === -1 ? item : item.slice(0, at)).trim()), quantity: Number(quantity) })
    }
    body.components = parsed
    if (body.kind === undefined) body.kind = "bundle"
  }

  const images = list(cells.get("images") ?? "")
  if (images.length > 0) {
    body.media_ids = images.map((path) => ref(options.imageId(path)))
    body.cover_id = ref(options.imageId(images[0]!))
  }

  let priced = false
  for (const column of priceColumns) {
    const value = cells.get(column)
    if (value === undefined) continue
    body[column] = decimal(value)
    priced = true
  }
  // Prices need the combined mode (catalog mode refuses price fields).
  if (priced) body.mode = "combined"
  set("translations", translations(cells))
  return Result.succeed({ body, images })
}
