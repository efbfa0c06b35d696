/**
 * Requests for one endpoint: a valid one built from the endpoint's own schemas (Effect's schema-derived
 * values of its path, query and payload schemas, encoded as a client would send them), then mutated into the invalid
 * ones clients send by mistake or on purpose. Ids of real records are placeholders (`@known`), filled
 * in when the request is sent to a seeded company.
 */
import { Resource, Resources } from "@catalog-sync/core"
import { Arbitrary, Cause, Effect, Exit, Option, Schema } from "effect"
import * as fc from "fast-check"
import { type Endpoint, isMultipart, type PartSchema } from "./ApiSurface.js"
import { at } from "../Json.js"

export type Body =
  | { readonly kind: "none" }
  | { readonly kind: "json"; readonly value: unknown; readonly contentType?: string }
  | { readonly kind: "raw"; readonly bytes: string | Uint8Array; readonly contentType?: string }
  | {
      readonly kind: "multipart"
      /** A field's value as text, or as raw bytes (which need not be UTF-8). */
      readonly fields: ReadonlyArray<readonly [string, string | Uint8Array]>
      readonly file: "png" | "garbage" | "none" | "twice"
    }

export interface FuzzRequest {
  readonly endpoint: Endpoint
  readonly mutation: string
  /** `@known` (a real record of the endpoint's kind), `@KNOWN` (the same, uppercase) or a raw segment. */
  readonly pathId: string
  /** Raw query string (already encoded), without `?`. */
  readonly query: string
  readonly body: Body
  /** Header overrides; `null` removes the header. */
  readonly headers: Readonly<Record<string, string | null>>
  readonly auth: "key" | "missing" | "malformed"
  /** Input the server must never take (not even rewritten): any answer but a 4xx is a problem. */
  readonly mustRefuse?: true
}

/** Marker values replaced by real ids of the seeded company when a request is sent. */
export const known = "@known"
export const knownUpper = "@KNOWN"

const weirdStrings = [
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff lone",
  "\u202eevil\u202c",
  "\u200f\u05e9\u05dc\u05d5\u05dd",
  "😀👨‍👩‍👧‍👦",
  "\ufeff",
  "ＡＢＣ",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%00",
  "__proto__",
  "constructor",
  "c1_AAAAAAAA",
  "c1_" + "z".repeat(40),
  "\t \n",
  "1e309"
]

const hugeString = (n: number) => fc.constantFrom("x", "é", "😀", "\u0000", "\ud800").map((c) => c.repeat(n))

const weirdString = fc.oneof(
  fc.constantFrom(...weirdStrings),
  fc.string({ unit: "binary", maxLength: 40 }),
  hugeString(70_000)
)

const wrongTyped = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  [],
  {},
  [null],
  { a: 1 },
  "",
  "0"
)

const outOfRange = fc.constantFrom<unknown>(
  -1,
  -0.5,
  1e21,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53),
  0.1,
  101,
  10_001,
  Number.MAX_VALUE
)

const badUuids = [
  "not-a-uuid",
  "00000000-0000-0000-0000-00000000000g",
  "0".repeat(36),
  "00000000000000000000000000000000",
  "{00000000-0000-0000-0000-000000000000}",
  "%20",
  "null",
  "undefined",
  "0x1",
  "x".repeat(300),
  "%E2%80%AE",
  "%00",
  "upsert",
  "..",
  "%2e%2e%2fproducts"
]

const badCursors = [
  "",
  "not-a-cursor",
  "c1_",
  "c1_abc",
  "c1_" + "A".repeat(20),
  "c2_MTIz",
  "MTIz",
  "-1",
  "9".repeat(40),
  "c1_%2F%2F"
]

const badIdempotencyKeys: ReadonlyArray<string | null> = [
  null,
  "",
  "short",
  "1234567",
  "x".repeat(121),
  "has space in it",
  "semi;colon;key",
  "ключ-идемпотентности",
  "key/with/slash",
  "key\twith\ttab",
  "%41%41%41%41%41%41%41%41"
]

const queryOddities = [
  "__proto__=1",
  "__proto__[limit]=1",
  "constructor=1",
  "constructor[prototype][x]=1",
  "toString=1",
  "hasOwnProperty=x",
  "limit=1&limit=2",
  "limit=",
  "limit=0",
  "limit=101",
  "limit=-5",
  "limit=1.5",
  "limit=1e1",
  "limit=0x10",
  "limit=%20%205",
  "limit=NaN",
  "limit=Infinity",
  "cursor=",
  "cursor=" + "0".repeat(36),
  "external_id=",
  "external_id=" + "x".repeat(201),
  "mode=PRICES",
  "mode=",
  "mode=prices&mode=catalog",
  "resource=products,,media",
  "resource=",
  "&&&",
  "=1",
  "%ZZ=1",
  "a=%ZZ",
  "unknown_filter=1",
  "active=TRUE",
  "source_kind=fabric"
]

/** Integers in forms `Number` reads but the API does not: a query integer is decimal digits. */
const lenientIntegers = ["1e1", "0x10", "%2050", "50%20", "%2B5", "5.0", "0b11", "1_0", "%095", "%EF%BC%95"]

/** Every location inside a JSON value that holds an object or array, as a path of keys. */
const containers = (
  value: unknown,
  path: ReadonlyArray<string | number> = []
): Array<ReadonlyArray<string | number>> => {
  if (value === null || typeof value !== "object") return []
  const here = [path]
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value)
  return here.concat(entries.flatMap(([k, v]) => containers(v, [...path, k])))
}

/** Every leaf (or container) location: candidates for replacement. */
const locations = (
  value: unknown,
  path: ReadonlyArray<string | number> = []
): Array<ReadonlyArray<string | number>> => {
  if (value === null || typeof value !== "object") return path.length === 0 ? [] : [path]
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value)
  return (path.length === 0 ? [] : [path]).concat(entries.flatMap(([k, v]) => locations(v, [...path, k])))
}

const clone = <A>(value: A): A => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as A))

/** The object or array that holds the member at `path` of `root`. */
const parentOf = (root: unknown, path: ReadonlyArray<string | number>): object => {
  const parent = at(root, ...path.slice(0, -1))
  if (typeof parent !== "object" || parent === null) throw new Error(`no container at ${path.join(".")}`)
  return parent
}

const setAt = (root: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown => {
  if (path.length === 0) return value
  const copy = clone(root)
  Reflect.set(parentOf(copy, path), path[path.length - 1]!, value)
  return copy
}

const deleteAt = (root: unknown, path: ReadonlyArray<string | number>): unknown => {
  const copy = clone(root)
  const parent = parentOf(copy, path)
  const key = path[path.length - 1]!
  if (Array.isArray(parent) && typeof key === "number") parent.splice(key, 1)
  else Reflect.deleteProperty(parent, key)
  return copy
}

const pick = <A>(items: ReadonlyArray<A>, n: number): A | undefined =>
  items.length === 0 ? undefined : items[n % items.length]

const deepNesting = (depth: number, kind: "array" | "object") =>
  kind === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)

/**
 * The values a schema describes, as a fast-check arbitrary (Effect 3's `Arbitrary.make`; Effect 4 ships
 * no fast-check): Effect's schema-derived sample for a drawn seed and size, shrunk by seed and size only.
 * Effect samples a value its generator cannot build directly (an import record's body, a declaration)
 * by filtering, and gives up on a seed after 100 discards: the next seeds are tried then.
 */
const fromSchema = <A>(schema: Schema.Codec<A, unknown>): fc.Arbitrary<A> => {
  const arbitrary = Arbitrary.schema(schema)
  const sample = (seed: number, size: number): A => {
    for (let attempt = 0; ; attempt++) {
      const drawn = Effect.runSyncExit(
        Arbitrary.sampleEffect(arbitrary, { seed: (seed + attempt * 7919) | 0, size, count: 1 })
      )
      if (Exit.isSuccess(drawn)) return drawn.value[0]!
      if (attempt === 20) throw Cause.squash(drawn.cause)
    }
  }
  return fc.tuple(fc.integer(), fc.nat({ max: 10 })).map(([seed, size]) => sample(seed, size))
}

/** A value the schema accepts, in its encoded (wire) form. */
const encoded = (schema: PartSchema): fc.Arbitrary<unknown> =>
  fromSchema(schema).map((value) => Schema.encodeSync(schema)(value))

const queryString = (params: unknown): string => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) search.append(key, String(item))
  }
  return search.toString()
}

/**
 * Byte sequences that are not UTF-8: overlong (`C0 80`, `E0 80 AF`), a lone continuation byte, a truncated
 * sequence, a surrogate encoded in UTF-8 (`ED A0 80`), past U+10FFFF, and bytes UTF-8 never uses.
 */
const invalidUtf8 = fc.constantFrom(
  [0xc0, 0x80],
  [0xe0, 0x80, 0xaf],
  [0x80],
  [0xbf, 0x41],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xff],
  [0xfe, 0xff]
)

/** `text` with `bad` in place of the first `@@` (a string of a JSON body, or a form field). */
const spliced = (text: string, bad: ReadonlyArray<number>) => {
  const [before, after = ""] = text.split("@@", 2) as [string, string?]
  const encoder = new TextEncoder()
  return Uint8Array.from([...encoder.encode(before), ...bad, ...encoder.encode(after)])
}

/**
 * Number literals JSON.parse cannot hold: non-zero ones read as 0, integers past 2^53 - 1 (rounded) and
 * ones read as Infinity. The server refuses them at their path instead of storing another value.
 */
const inexactNumber = fc.constantFrom(
  `0.${"0".repeat(400)}1`,
  `0.${"0".repeat(400_000)}1`,
  "1e-400",
  "-4e-999",
  "9007199254740993",
  "-9007199254740993",
  "18446744073709551617",
  "9.007199254740993e15",
  "1e400",
  "-1e999",
  "1" + "0".repeat(400)
)

const mediaFields = fc.record({
  external_id: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), weirdString),
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), weirdString),
  purpose: fc.oneof(fc.constantFrom("catalog", "option"), weirdString)
})

/**
 * Import records whose bodies come from each resource's own upsert schema: valid ones, and ones broken as
 * the request mutations break a body (a missing or wrong-typed field, an unknown key). A rule must never
 * read a record body before that schema has checked it.
 */
// Each resource's arbitrary made once: `chain` asks for it at every sample, and making it costs far more
// than drawing from it.
const encodedBodies = new Map(
  Resource.ResourceName.literals.map((resource) => [resource, encoded(Resources.definitions[resource].body)])
)
const importRecord = fc
  .constantFrom(...Resource.ResourceName.literals)
  .chain((resource) => encodedBodies.get(resource)!.map((body) => ({ resource, body })))

const brokenImportRecord = fc
  .tuple(importRecord, fc.nat(), wrongTyped, fc.constantFrom("missing", "wrong-typed", "unknown key", "null item"))
  .map(([record, n, wrong, how]) => {
    const spot = pick(locations(record.body), n)
    const body =
      how === "missing" && spot !== undefined
        ? deleteAt(record.body, spot)
        : how === "wrong-typed" && spot !== undefined
          ? setAt(record.body, spot, wrong)
          : how === "null item"
            ? { ...(record.body as object), fields: [null], category_ids: [null] }
            : { ...(record.body as object), [`x_${n}`]: wrong }
    return { resource: record.resource, body }
  })

/** The mutations that apply to an endpoint, each an arbitrary of (label, request). */
export const requestArbitrary = (endpoint: Endpoint): fc.Arbitrary<FuzzRequest> => {
  const json = Option.isSome(endpoint.payloadSchema) && !isMultipart(endpoint)
  const query = Option.match(endpoint.urlParamsSchema, {
    onNone: () => fc.constant(""),
    onSome: (schema) => encoded(schema).map(queryString)
  })
  const payload = json ? encoded(Option.getOrThrow(endpoint.payloadSchema)) : fc.constant(undefined)
  const pathId = fc.oneof({ weight: 3, arbitrary: fc.constant(known) }, fc.uuid(), fc.constant(knownUpper))
  const base = fc.record({ pathId, query, payload, n: fc.nat(), m: fc.nat() })
  const make = (
    mutation: string,
    parts: Partial<FuzzRequest> & { readonly pathId: string; readonly query: string },
    body: Body
  ): FuzzRequest => ({
    endpoint,
    mutation,
    headers: {},
    auth: "key",
    ...parts,
    body
  })
  const jsonBody = (value: unknown): Body => (json ? { kind: "json", value } : { kind: "none" })
  const multipartBody = (fields: Record<string, string>, file: "png" | "garbage" | "none" | "twice" = "png"): Body => ({
    kind: "multipart",
    fields: Object.entries(fields),
    file
  })

  const mutations: Array<fc.Arbitrary<FuzzRequest>> = [
    base.map((b) =>
      make(
        "valid",
        b,
        isMultipart(endpoint)
          ? multipartBody({ external_id: `fuzz-${b.n}`, name: "n", purpose: "catalog" })
          : jsonBody(b.payload)
      )
    ),
    fc
      .tuple(base, fc.constantFrom(...queryOddities))
      .map(([b, odd]) =>
        make(
          "query oddity",
          { ...b, query: b.query === "" ? odd : `${b.query}&${odd}` },
          isMultipart(endpoint)
            ? multipartBody({ external_id: "q", name: "n", purpose: "catalog" })
            : jsonBody(b.payload)
        )
      ),
    fc
      .tuple(base, fc.constantFrom(...badUuids))
      .map(([b, id]) => make("bad path id", { ...b, pathId: id }, jsonBody(b.payload))),
    fc
      .tuple(base, fc.constantFrom<FuzzRequest["auth"]>("missing", "malformed"))
      .map(([b, auth]) => make("bad credentials", { ...b, auth }, jsonBody(b.payload)))
  ]
  if (Option.isSome(endpoint.urlParamsSchema)) {
    mutations.push(
      fc.tuple(base, fc.constantFrom(...badCursors), fc.uuid()).map(([b, cursor, uuid]) =>
        make(
          "forged cursor",
          {
            ...b,
            query: `cursor=${encodeURIComponent(b.n % 3 === 0 ? uuid.toUpperCase() : b.n % 3 === 1 ? uuid : cursor)}`
          },
          { kind: "none" }
        )
      ),
      fc
        .tuple(
          base,
          fc.dictionary(
            fc.constantFrom("limit", "cursor", "external_id", "mode", "resource", "source_id", "x"),
            weirdString,
            { maxKeys: 3 }
          )
        )
        .map(([b, params]) => make("weird query values", { ...b, query: queryString(params) }, { kind: "none" })),
      fc
        .tuple(base, fc.constantFrom(...lenientIntegers))
        .map(([b, limit]) =>
          make("limit not in decimal digits", { ...b, query: `limit=${limit}`, mustRefuse: true }, { kind: "none" })
        )
    )
  }
  if (Option.isSome(endpoint.headersSchema)) {
    mutations.push(
      fc
        .tuple(base, fc.constantFrom(...badIdempotencyKeys))
        .map(([b, key]) =>
          make(
            "malformed Idempotency-Key",
            { ...b, headers: { "idempotency-key": key } },
            isMultipart(endpoint)
              ? multipartBody({ external_id: "k", name: "n", purpose: "catalog" })
              : jsonBody(b.payload)
          )
        )
    )
  }
  if (json) {
    mutations.push(
      base.map((b) => {
        const spots = locations(b.payload)
        const spot = pick(spots, b.n)
        return make("missing field", b, jsonBody(spot === undefined ? {} : deleteAt(b.payload, spot)))
      }),
      fc.tuple(base, wrongTyped).map(([b, wrong]) => {
        const spot = pick(locations(b.payload), b.n)
        return make("wrong-typed field", b, jsonBody(spot === undefined ? wrong : setAt(b.payload, spot, wrong)))
      }),
      fc.tuple(base, fc.string({ minLength: 1, maxLength: 12 })).map(([b, name]) => {
        const spot = pick(containers(b.payload), b.n) ?? []
        const target = at(b.payload, ...spot)
        const value = Array.isArray(target)
          ? setAt(b.payload, [...spot, target.length], { [name]: 1 })
          : setAt(b.payload, [...spot, `x_${name}`], 1)
        return make("unknown key", b, jsonBody(value))
      }),
      fc.tuple(base, weirdString).map(([b, text]) => {
        const strings = locations(b.payload).filter((p) => typeof at(b.payload, ...p) === "string")
        const spot = pick(strings, b.n) ?? pick(locations(b.payload), b.n)
        return make("huge or unicode string", b, jsonBody(spot === undefined ? text : setAt(b.payload, spot, text)))
      }),
      fc.tuple(base, outOfRange).map(([b, number]) => {
        const numbers = locations(b.payload).filter((p) => typeof at(b.payload, ...p) === "number")
        const spot = pick(numbers, b.n) ?? pick(locations(b.payload), b.n)
        return make("out-of-range number", b, jsonBody(spot === undefined ? number : setAt(b.payload, spot, number)))
      }),
      fc
        .tuple(
          base,
          fc.constantFrom<unknown>(
            { external_id: "fuzz-nothing" },
            { external_id: "" },
            { external_id: "x", id: 1 },
            {},
            { EXTERNAL_ID: "a" },
            "00000000-0000-7000-8000-000000000000",
            knownUpper,
            [known]
          )
        )
        .map(([b, reference]) => {
          const refs = locations(b.payload).filter((p) =>
            /_id$|_ids$/.test(String([...p].reverse().find((k) => typeof k === "string")))
          )
          const spot = pick(refs, b.n)
          return make(
            "forged reference",
            b,
            jsonBody(spot === undefined ? b.payload : setAt(b.payload, spot, reference))
          )
        }),
      fc
        .tuple(
          base,
          fc.integer({ min: 1, max: 3 }),
          fc.constantFrom<"array" | "object">("array", "object"),
          fc.constantFrom(64, 2_000, 20_000)
        )
        .map(([b, slot, kind, depth]) => {
          const nested = deepNesting(depth, kind)
          const text = JSON.stringify({ ...(b.payload as object), x_deep: "@@" }).replace('"@@"', nested)
          return make(
            "deep nesting",
            b,
            slot === 1
              ? { kind: "raw", bytes: nested, contentType: "application/json" }
              : { kind: "raw", bytes: text, contentType: "application/json" }
          )
        }),
      fc
        .tuple(
          base,
          fc.constantFrom(
            "{",
            "",
            "null",
            "[]",
            "1",
            '"x"',
            "{'a':1}",
            '{"a":1,}',
            '{"a":NaN}',
            "\u0000",
            '{"a":"\\ud800"}',
            "[".repeat(10),
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{}}}'
          )
        )
        .map(([b, text]) => make("invalid JSON", b, { kind: "raw", bytes: text, contentType: "application/json" })),
      fc
        .tuple(
          base,
          fc.constantFrom(
            new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]),
            new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])
          )
        )
        .map(([b, bytes]) => make("invalid UTF-8", b, { kind: "raw", bytes, contentType: "application/json" })),
      fc.tuple(base, invalidUtf8).map(([b, bad]) => {
        // In a string of an otherwise valid body: nothing else refuses it.
        const strings = locations(b.payload).filter((p) => typeof at(b.payload, ...p) === "string")
        const spot = pick(strings, b.n)
        const value = spot === undefined ? { ...(b.payload as object), x_text: "a@@b" } : setAt(b.payload, spot, "a@@b")
        return make(
          "invalid UTF-8 in a string",
          { ...b, mustRefuse: true },
          { kind: "raw", bytes: spliced(JSON.stringify(value), bad), contentType: "application/json" }
        )
      }),
      fc.tuple(base, inexactNumber).map(([b, literal]) => {
        const numbers = locations(b.payload).filter((p) => typeof at(b.payload, ...p) === "number")
        const spot = pick(numbers, b.n) ?? pick(locations(b.payload), b.n)
        const value = spot === undefined ? { ...(b.payload as object), x_number: "@@" } : setAt(b.payload, spot, "@@")
        return make(
          "number JSON.parse cannot hold",
          { ...b, mustRefuse: true },
          { kind: "raw", bytes: JSON.stringify(value).replace('"@@"', literal), contentType: "application/json" }
        )
      }),
      fc
        .tuple(
          base,
          fc.constantFrom(
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "application/xml",
            "",
            "application/json-patch+json",
            "APPLICATION/JSON; charset=utf-8"
          )
        )
        .map(([b, contentType]) => make("wrong content type", b, { kind: "json", value: b.payload, contentType })),
      base
        .filter((b) => b.n % 8 === 0)
        .map((b) =>
          make("oversized body", b, {
            kind: "raw",
            bytes: JSON.stringify({ ...(b.payload as object), x_pad: "x".repeat(1_000_001) }),
            contentType: "application/json"
          })
        )
    )
    if (endpoint.key === "imports.submit") {
      mutations.push(
        fc
          .tuple(
            base,
            fc.array(fc.oneof(importRecord, brokenImportRecord), { minLength: 1, maxLength: 6 }),
            fc.boolean()
          )
          .map(([b, records, dryRun]) =>
            make("import records from upsert schemas", b, jsonBody({ ...(dryRun ? { dry_run: true } : {}), records }))
          ),
        fc.tuple(base, importRecord).map(([b, record]) => {
          const body = JSON.stringify(record.body).replace(/^\{/, '{"__proto__":{"price":"1"},')
          return make("import record with __proto__", b, {
            kind: "raw",
            bytes: `{"dry_run":true,"records":[{"resource":"${record.resource}","body":${body}}]}`,
            contentType: "application/json"
          })
        })
      )
    }
  } else if (isMultipart(endpoint)) {
    mutations.push(
      fc
        .tuple(
          base,
          mediaFields,
          fc.constantFrom<"png" | "garbage" | "none" | "twice">("png", "garbage", "none", "twice")
        )
        .map(([b, fields, file]) => make("multipart fields", b, multipartBody(fields, file))),
      fc.tuple(base, fc.constantFrom("external_id", "name", "purpose"), invalidUtf8).map(([b, field, bad]) => {
        const fields: Array<readonly [string, string | Uint8Array]> = [
          ["external_id", `fuzz-b-${b.n}`],
          ["name", "n"],
          ["purpose", "catalog"]
        ]
        return make(
          "invalid UTF-8 in a field",
          { ...b, mustRefuse: true },
          {
            kind: "multipart",
            fields: fields.map(([name, value]) => [name, name === field ? spliced("a@@b", bad) : value] as const),
            file: "png"
          }
        )
      }),
      fc.tuple(base, fc.constantFrom("external_id", "name", "purpose")).map(([b, missing]) => {
        const fields: Record<string, string> = { external_id: `fuzz-m-${b.n}`, name: "n", purpose: "option" }
        delete fields[missing]
        return make("missing field", b, multipartBody(fields))
      }),
      base.map((b) =>
        make(
          "unknown key",
          b,
          multipartBody({ external_id: `fuzz-u-${b.n}`, name: "n", purpose: "catalog", extra: "1" })
        )
      ),
      fc
        .tuple(
          base,
          fc.constantFrom("application/json", "text/plain", "multipart/form-data", "multipart/mixed; boundary=x")
        )
        .map(([b, contentType]) =>
          make("wrong content type", b, { kind: "raw", bytes: '{"external_id":"x"}', contentType })
        ),
      base.map((b) =>
        make("invalid JSON", b, {
          kind: "raw",
          bytes: "--x\r\nnot a form",
          contentType: "multipart/form-data; boundary=x"
        })
      )
    )
  } else {
    // Endpoints without a body: a body anyway, of any type.
    mutations.push(
      fc
        .tuple(base, fc.constantFrom("application/json", "text/plain"))
        .map(([b, contentType]) => make("unexpected body", b, { kind: "raw", bytes: '{"x":1}', contentType }))
    )
  }
  return fc.oneof(...mutations)
}
