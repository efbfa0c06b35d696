import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import * as fc from "fast-check"
import { rows } from "../../src/loader/Csv.js"
import { decimal, mapper } from "../../src/loader/CsvMapping.js"
import { jsonLine } from "../../src/loader/Input.js"
import { resourceOfName } from "../../src/loader/Sources.js"
import { lines } from "../../src/loader/Lines.js"
import { prop } from "../properties.js"

/** The bytes of `text` cut into chunks at the given (sorted, deduplicated) positions. */
const chunked = (bytes: Buffer, cuts: ReadonlyArray<number>) => {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const parts: Array<Uint8Array> = []
  let from = 0
  for (const cut of [...at, bytes.length]) {
    if (cut > from) parts.push(bytes.subarray(from, cut))
    from = Math.max(from, cut)
  }
  return Stream.fromIterable(parts)
}

const collect = <A>(stream: Stream.Stream<A>) =>
  Effect.runSync(Stream.runCollect(stream).pipe(Effect.map((out) => Array.from(out))))

describe("lines", () => {
  prop(
    "split on \\n wherever the chunks are cut, with each line's number and byte range",
    [
      fc.array(
        fc.string({ unit: "grapheme", maxLength: 20 }).filter((s) => !s.includes("\n") && !s.includes("\r")),
        { maxLength: 20 }
      ),
      fc.array(fc.nat(400)),
      fc.boolean()
    ],
    ([texts, cuts, crlf]) => {
      const text = texts.map((t) => `${t}${crlf ? "\r\n" : "\n"}`).join("")
      const bytes = Buffer.from(text)
      const out = collect(lines(chunked(bytes, cuts)))
      expect(out.map((l) => l.text)).toEqual(texts)
      out.forEach((line, i) => {
        expect(line.number).toBe(i + 1)
        expect(bytes.subarray(line.start, line.end).toString()).toBe(`${texts[i]}${crlf ? "\r\n" : "\n"}`)
      })
    }
  )

  it("keeps a last line without a break, drops a byte-order mark, reports over-long lines", () => {
    const out = collect(lines(Stream.make(Buffer.from("\uFEFFa\nbbbbbbbbbb\nc")), { maxLineBytes: 5 }))
    expect(out.map((l) => [l.text, l.oversized])).toEqual([
      ["a", false],
      ["", true],
      ["c", false]
    ])
    expect(out[2]!.start).toBe(Buffer.byteLength("\uFEFFa\nbbbbbbbbbb\n"))
  })

  it("numbers the lines of a byte range from where it starts", () => {
    const out = collect(lines(Stream.make(Buffer.from("x\ny\n")), { firstLine: 7, firstOffset: 100 }))
    expect(out.map((l) => [l.number, l.start])).toEqual([
      [7, 100],
      [8, 102]
    ])
  })
})

const csvField = fc.string({ maxLength: 12 }).map((s) => s.replace(/\r/g, ""))
const encode = (field: string, delimiter: string) =>
  /["\n]/.test(field) || field.includes(delimiter) || field.startsWith(" ") ? `"${field.replace(/"/g, '""')}"` : field

describe("CSV rows", () => {
  prop(
    "read back what was written, quotes, delimiters and line breaks inside fields included",
    [
      fc.array(fc.array(csvField, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
      fc.constantFrom(",", ";", "\t"),
      fc.array(fc.nat(300))
    ],
    ([table, delimiter, cuts]) => {
      const header = ["a", "b", "c"].join(delimiter)
      const text = `${header}\n${table.map((row) => row.map((f) => encode(f, delimiter)).join(delimiter)).join("\n")}\n`
      const out = collect(rows(lines(chunked(Buffer.from(text), cuts))))
      // A row of three empty fields is a blank line only when the delimiter cannot show: never here.
      expect(out.map((r) => r.fields)).toEqual([["a", "b", "c"], ...table])
    }
  )

  it("tells the delimiter from the header and numbers rows by their first line", () => {
    const out = collect(rows(lines(Stream.make(Buffer.from('id;name\n1;"two\nlines"\n\n3;x\n')))))
    expect(out.map((r) => [r.line, r.fields])).toEqual([
      [1, ["id", "name"]],
      [2, ["1", "two\nlines"]],
      [5, ["3", "x"]]
    ])
  })
})

const imageId = (path: string) => `img/${path}`

describe("CSV column mapping", () => {
  it("maps a product row: references, details, translations, prices in combined mode, images, components", () => {
    const header = [
      "external_id",
      "name",
      "sku",
      "active",
      "categories",
      "brand",
      "description",
      "width",
      "price",
      "tax_rate",
      "name.de",
      "description.de",
      "images",
      "components"
    ]
    const map = Result.getOrThrow(mapper("products", header, { imageId }))
    const row = [
      "p1",
      "Sofa",
      "S-1",
      "yes",
      "sofas | living",
      "acme",
      "Soft",
      "210,5",
      "1299,00",
      "20",
      "Sofa DE",
      "Weich",
      "a.jpg|b.png",
      "leg=4|cushion"
    ]
    expect(Result.getOrThrow(map(row))).toEqual({
      images: ["a.jpg", "b.png"],
      body: {
        external_id: "p1",
        name: "Sofa",
        sku: "S-1",
        active: true,
        category_ids: [{ external_id: "sofas" }, { external_id: "living" }],
        brand_id: { external_id: "acme" },
        details: { description: "Soft", width: "210.5" },
        price: "1299.00",
        tax_rate: "20",
        mode: "combined",
        translations: { de: { name: "Sofa DE", description: "Weich" } },
        media_ids: [{ external_id: "img/a.jpg" }, { external_id: "img/b.png" }],
        cover_id: { external_id: "img/a.jpg" },
        components: [
          { product_id: { external_id: "leg" }, quantity: 4 },
          { product_id: { external_id: "cushion" }, quantity: 1 }
        ],
        kind: "bundle"
      }
    })
  })

  it("leaves empty cells out and keeps catalog mode without prices", () => {
    const map = Result.getOrThrow(mapper("products", ["external_id", "name", "price", "brand"], { imageId }))
    expect(Result.getOrThrow(map(["p2", "Chair", "", ""])).body).toEqual({ external_id: "p2", name: "Chair" })
  })

  it("maps a category row with its parent, image and translations", () => {
    const map = Result.getOrThrow(
      mapper("categories", ["external_id", "name", "parent", "image", "name.fr"], { imageId })
    )
    expect(Result.getOrThrow(map(["c2", "Chairs", "c1", "chairs.webp", "Chaises"]))).toEqual({
      images: ["chairs.webp"],
      body: {
        external_id: "c2",
        name: "Chairs",
        parent_id: { external_id: "c1" },
        image_id: { external_id: "img/chairs.webp" },
        translations: { fr: { name: "Chaises" } }
      }
    })
  })

  it("refuses unknown and repeated columns at the header unless mapped; renames and ignores through the header map", () => {
    expect(Result.getFailure(mapper("products", ["external_id", "Titel"], { imageId }))._tag).toBe("Some")
    expect(Result.getFailure(mapper("products", ["name"], { imageId }))).toMatchObject({
      value: expect.stringContaining("external_id")
    })
    expect(Result.getFailure(mapper("products", ["external_id", "name", "name"], { imageId }))).toMatchObject({
      value: expect.stringContaining("twice")
    })
    const map = Result.getOrThrow(
      mapper("products", ["Art.Nr", "Titel", "Lager"], {
        imageId,
        headerMap: { "Art.Nr": "external_id", Titel: "name", Lager: null }
      })
    )
    expect(Result.getOrThrow(map(["A1", "Tisch", "12"])).body).toEqual({ external_id: "A1", name: "Tisch" })
  })

  it("reports a row it cannot map, with the path", () => {
    const map = Result.getOrThrow(mapper("products", ["external_id", "active", "components"], { imageId }))
    expect(Result.getFailure(map(["p", "maybe", ""]))).toMatchObject({ value: { path: "$.active" } })
    expect(Result.getFailure(map(["p", "", "x=two"]))).toMatchObject({ value: { path: "$.components" } })
    expect(Result.getFailure(map(["", "", ""]))).toMatchObject({ value: { path: "$.external_id" } })
    expect(Result.getFailure(map(["p", "", "", "extra"]))).toMatchObject({ value: { path: "$" } })
  })

  prop(
    "a decimal comma becomes a point; anything else is left for the server to judge",
    [fc.nat(), fc.nat()],
    ([a, b]) => {
      expect(decimal(`${a},${b}`)).toBe(`${a}.${b}`)
      expect(decimal(`${a}.${b}`)).toBe(`${a}.${b}`)
    }
  )
})

describe("JSONL lines", () => {
  const mixed = { path: "data.jsonl", format: "jsonl" as const, resource: undefined }
  const products = { path: "products.jsonl", format: "jsonl" as const, resource: "products" as const }
  const position = { file: "f", line: 3 }

  it("reads {resource, body} lines, bare bodies in a resource's file, and refuses the rest at their line", () => {
    expect(jsonLine('{"resource":"brands","body":{"external_id":"b"}}', position, mixed)).toMatchObject({
      _tag: "Record",
      record: { resource: "brands", json: '{"external_id":"b"}' }
    })
    expect(jsonLine('{"external_id":"p"}', position, products)).toMatchObject({
      _tag: "Record",
      record: { resource: "products" }
    })
    expect(jsonLine("   ", position, mixed)).toBeUndefined()
    expect(jsonLine("{oops", position, mixed)).toMatchObject({
      _tag: "Invalid",
      invalid: { position, message: expect.stringContaining("not JSON") }
    })
    expect(jsonLine('{"resource":"orders","body":{"external_id":"o"}}', position, mixed)).toMatchObject({
      _tag: "Invalid",
      invalid: { externalId: "o", path: "$.resource" }
    })
    expect(jsonLine('{"external_id":"p"}', position, mixed)).toMatchObject({ _tag: "Invalid" })
    expect(
      jsonLine(`{"resource":"products","body":{"external_id":"p","name":"${"x".repeat(1_100_000)}"}}`, position, mixed)
    ).toMatchObject({ _tag: "Invalid" })
  })

  it("reads media lines relative to their file", () => {
    expect(
      jsonLine('{"resource":"media","body":{"external_id":"m","file":"img/a.png"}}', position, {
        ...mixed,
        path: "/data/in.jsonl"
      })
    ).toMatchObject({
      _tag: "Media",
      media: { externalId: "m", name: "a", purpose: "catalog", file: "/data/img/a.png" }
    })
  })

  it("names resources after file names", () => {
    expect(
      ["products.csv", "categories-2024.jsonl", "customization-options_x.ndjson", "media.jsonl", "export.jsonl"].map(
        resourceOfName
      )
    ).toEqual(["products", "categories", "customization-options", "media", undefined])
  })
})
