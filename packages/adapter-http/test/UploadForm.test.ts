import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { PassThrough } from "node:stream"
import {
  fileBufferBytes,
  type FormRules,
  type FormRefused,
  readForm,
  type Settled,
  type UploadForm
} from "../src/Media/UploadForm.js"

const boundary = "form-boundary"
const headers = { "content-type": `multipart/form-data; boundary=${boundary}` }
const field = (name: string, value: string) =>
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
const filePart = (name: string, data: Uint8Array) =>
  Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="f.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`
    ),
    data,
    Buffer.from("\r\n")
  ])
const closing = Buffer.from(`--${boundary}--\r\n`)
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * seed + 7) % 251)

type Refusal = { readonly kind: string; readonly detail?: string }
const rules: FormRules<Refusal> = {
  maxBodyBytes: 5_000_000,
  maxParts: 4,
  maxFieldBytes: 64,
  field: (key, _value, before) =>
    key === "bad" ? { kind: "field", detail: key } : key in before ? { kind: "repeated", detail: key } : undefined,
  notText: (key) => ({ kind: "not-text", detail: key }),
  file: (name, earlier) =>
    name !== "file" ? { kind: "file-name", detail: name } : earlier > 0 ? { kind: "second-file" } : undefined,
  tooLarge: () => ({ kind: "too-large" }),
  malformed: (error) => ({
    kind: "malformed",
    detail: error._tag === "ReachedLimit" ? error.limit : error._tag
  }),
  unreadable: () => ({ kind: "unreadable" })
}

const once = <A>(wait: (callback: (settled: Settled<A, Refusal>) => void) => void) =>
  new Promise<Settled<A, Refusal>>((resolve) => wait(resolve))

/** Reads the whole file part (or its refusal) and then the end of the form. */
const readAll = async (form: UploadForm<Refusal>) => {
  const file = await once(form.whenFile)
  let content: Buffer | undefined
  let thrown: unknown
  if (file._tag === "Done" && file.value !== undefined) {
    const parts: Array<Uint8Array> = []
    try {
      for await (const chunk of file.value) parts.push(chunk)
      content = Buffer.concat(parts)
    } catch (error) {
      thrown = error
    }
  }
  const ended = await once(form.whenEnded)
  return { file, content, thrown, ended, fields: { ...form.fields } }
}

/** A request body that sends `body` in chunks cut at `cuts`, then ends. */
const sent = (body: Buffer, cuts: ReadonlyArray<number> = []) => {
  const stream = new PassThrough()
  const at = [0, ...[...new Set(cuts)].filter((c) => c > 0 && c < body.length).sort((a, b) => a - b), body.length]
  void (async () => {
    for (let i = 0; i + 1 < at.length; i++) {
      if (!stream.write(body.subarray(at[i], at[i + 1]))) await new Promise((r) => stream.once("drain", r))
    }
    stream.end()
  })()
  return stream
}

describe("readForm", () => {
  const data = bytes(300_000, 3)
  const body = Buffer.concat([field("external_id", "e1"), filePart("file", data), field("name", "N"), closing])

  it("reads the same fields and file bytes wherever the body is cut into chunks", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 40 }), async (cuts) => {
        const read = await readAll(readForm(sent(body, cuts), headers, rules))
        expect(read.fields).toEqual({ external_id: "e1", name: "N" })
        expect(read.content !== undefined && Buffer.compare(read.content, Buffer.from(data))).toBe(0)
        expect(read.ended).toEqual({ _tag: "Done", value: undefined })
      }),
      { numRuns: 40 }
    ))

  it("reads a form the same wherever one cut falls, dashes in its values and data included", async () => {
    // The closing boundary's two dashes split between writes once made the parser take them for a part.
    const dashed = Buffer.from("--x--\r\n----" + "a".repeat(40) + "-")
    const small = Buffer.concat([field("external_id", "e-1-"), filePart("file", dashed), field("name", "-N-"), closing])
    const misread: Array<number> = []
    for (let cut = 1; cut < small.length; cut++) {
      const read = await readAll(readForm(sent(small, [cut]), headers, rules))
      const same =
        read.ended._tag === "Done" &&
        read.content?.equals(dashed) === true &&
        read.fields.external_id === "e-1-" &&
        read.fields.name === "-N-"
      if (!same) misread.push(cut)
    }
    expect(misread).toEqual([])
  })

  it("answers a form without a file part with no file, once all of it is read", async () => {
    const read = await readAll(readForm(sent(Buffer.concat([field("name", "N"), closing])), headers, rules))
    expect([read.file, read.fields, read.ended._tag]).toEqual([
      { _tag: "Done", value: undefined },
      { name: "N" },
      "Done"
    ])
  })

  it("pauses the body while the file's consumer is behind, and resumes it as the consumer catches up", async () => {
    const large = bytes(6 * fileBufferBytes, 5)
    const whole = Buffer.concat([filePart("file", large), closing])
    const stream = sent(
      whole,
      Array.from({ length: Math.floor(whole.length / 65_536) }, (_, i) => (i + 1) * 65_536)
    )
    const form = readForm(stream, headers, { ...rules, maxBodyBytes: 10 * fileBufferBytes })
    const file = await once(form.whenFile)
    // Nobody reads the chunks: the body stops flowing once a little over the buffer's worth has arrived.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(stream.isPaused()).toBe(true)
    expect(stream.readableLength + stream.writableLength).toBeGreaterThan(0)
    const parts: Array<Uint8Array> = []
    for await (const chunk of (file as { value: AsyncIterable<Uint8Array> }).value) parts.push(chunk)
    expect(Buffer.compare(Buffer.concat(parts), Buffer.from(large))).toBe(0)
    expect(await once(form.whenEnded)).toEqual({ _tag: "Done", value: undefined })
  })

  it("refuses a field as it arrives and reads nothing after it", async () => {
    const seen: Array<string> = []
    const counting: FormRules<Refusal> = {
      ...rules,
      field: (key, value, before) => (seen.push(key), rules.field(key, value, before))
    }
    const read = await readAll(
      readForm(
        sent(Buffer.concat([field("bad", "x"), field("name", "N"), filePart("file", data), closing])),
        headers,
        counting
      )
    )
    expect(read.file).toEqual({ _tag: "Refused", refusal: { kind: "field", detail: "bad" } })
    expect(read.ended).toEqual({ _tag: "Refused", refusal: { kind: "field", detail: "bad" } })
    expect(seen).toEqual(["bad"])
  })

  it("a refusal after the file part has arrived whole lets its consumer read all of it, then ends the form", async () => {
    for (const after of [filePart("file", data), field("bad", "x")]) {
      const form = readForm(sent(Buffer.concat([filePart("file", data), after, closing])), headers, rules)
      const file = await once(form.whenFile)
      // The consumer starts once the whole body has been parsed: staging's own refusals come first.
      const ended = await once(form.whenEnded)
      expect(ended._tag).toBe("Refused")
      const parts: Array<Uint8Array> = []
      for await (const chunk of (file as { value: AsyncIterable<Uint8Array> }).value) parts.push(chunk)
      expect(Buffer.compare(Buffer.concat(parts), Buffer.from(data))).toBe(0)
    }
  })

  it("refuses a second file part after the first", async () => {
    const read = await readAll(
      readForm(sent(Buffer.concat([filePart("file", data), filePart("file", data), closing])), headers, rules)
    )
    expect(read.content !== undefined && Buffer.compare(read.content, Buffer.from(data))).toBe(0)
    expect(read.ended).toEqual({ _tag: "Refused", refusal: { kind: "second-file" } })
  })

  it("return ends a read that waits for the client's next bytes at once", async () => {
    const stream = new PassThrough()
    const form = readForm(stream, headers, rules)
    stream.write(filePart("file", data).subarray(0, 50_000))
    const file = await once(form.whenFile)
    const chunks = (file as { value: AsyncIterable<Uint8Array> }).value[Symbol.asyncIterator]()
    while ((await chunks.next()).done !== true) {
      // Every byte sent so far read: the next read waits.
      if (stream.readableLength === 0) break
    }
    const waiting = chunks.next()
    await chunks.return!()
    expect(await waiting).toEqual({ done: true, value: undefined })
  })

  it("refuses a part whose filename* does not decode, instead of throwing from the body's listener", async () => {
    const bad = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''%E0%A4%A\r\n\r\nabc\r\n`
    )
    const read = await readAll(readForm(sent(Buffer.concat([bad, closing])), headers, rules))
    // Effect's parser takes a Content-Disposition it cannot decode for one without a name.
    expect(read.ended).toEqual({ _tag: "Refused", refusal: { kind: "malformed", detail: "InvalidDisposition" } })
  })

  it("refuses a field whose bytes are not UTF-8 (or not its part's charset) instead of storing U+FFFD", async () => {
    const raw = (name: string, value: Buffer, contentType = "") =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${contentType}\r\n`),
        value,
        Buffer.from("\r\n")
      ])
    const refusalOf = async (part: Buffer) =>
      (await readAll(readForm(sent(Buffer.concat([part, closing])), headers, rules))).ended
    for (const bad of ["c080", "e080af", "80", "e282", "eda080", "f4908080"]) {
      expect(await refusalOf(raw("name", Buffer.from(`41${bad}42`, "hex")))).toEqual({
        _tag: "Refused",
        refusal: { kind: "not-text", detail: "name" }
      })
    }
    const read = await readAll(
      readForm(
        sent(
          Buffer.concat([
            raw("name", Buffer.from("Caf\u00e9 \u{1F600}")),
            raw("purpose", Buffer.from("e9", "hex"), "Content-Type: text/plain; charset=latin1\r\n"),
            closing
          ])
        ),
        headers,
        rules
      )
    )
    expect(read.ended).toEqual({ _tag: "Done", value: undefined })
    expect(read.fields).toEqual({ name: "Caf\u00e9 \u{1F600}", purpose: "\u00e9" })
  })

  it("refuses a Content-Type without a boundary before reading anything", async () => {
    const stream = sent(body)
    const form = readForm(stream, { "content-type": "multipart/form-data; charset=utf-8" }, rules)
    expect(await once(form.whenFile)).toEqual({
      _tag: "Refused",
      refusal: { kind: "malformed", detail: "InvalidBoundary" }
    })
    expect(stream.listenerCount("data")).toBe(0)
  })

  it("refuses a file part under another name, a body past its limit, too many parts and a form without its end", async () => {
    const refusalOf = async (body: Buffer, limits: Partial<FormRules<Refusal>> = {}) =>
      (await readAll(readForm(sent(body), headers, { ...rules, ...limits }))).ended
    expect(await refusalOf(Buffer.concat([filePart("photo", data), closing]))).toEqual({
      _tag: "Refused",
      refusal: { kind: "file-name", detail: "photo" }
    })
    expect(await refusalOf(body, { maxBodyBytes: 100_000 })).toEqual({
      _tag: "Refused",
      refusal: { kind: "too-large" }
    })
    expect(
      await refusalOf(Buffer.concat(["a", "b", "c", "d", "e"].map((name) => field(name, "1")).concat(closing)))
    ).toEqual({ _tag: "Refused", refusal: { kind: "malformed", detail: "MaxParts" } })
    expect(await refusalOf(Buffer.concat([field("name", "x".repeat(65)), closing]))).toEqual({
      _tag: "Refused",
      refusal: { kind: "malformed", detail: "MaxFieldSize" }
    })
    expect(await refusalOf(Buffer.concat([field("name", "N"), filePart("file", data)]))).toEqual({
      _tag: "Refused",
      refusal: { kind: "malformed", detail: "EndNotReached" }
    })
  })

  it("a body cut off by its client is unreadable, for the file's consumer as for the form", async () => {
    const stream = new PassThrough()
    const form = readForm(stream, headers, rules)
    stream.write(Buffer.concat([field("name", "N"), filePart("file", data).subarray(0, 100_000)]))
    const file = await once(form.whenFile)
    stream.destroy(new Error("socket hang up"))
    const read = await readAll(
      Object.assign(form, { whenFile: (callback: (settled: typeof file) => void) => callback(file) })
    )
    expect((read.thrown as FormRefused<Refusal>).refusal).toEqual({ kind: "unreadable" })
    expect(read.ended).toEqual({ _tag: "Refused", refusal: { kind: "unreadable" } })
  })

  it("stop ends a file not read to its end for its consumer, and reads no more of the body", async () => {
    const stream = new PassThrough()
    const form = readForm(stream, headers, rules)
    stream.write(filePart("file", data).subarray(0, 100_000))
    const file = await once(form.whenFile)
    form.stop()
    expect(stream.listenerCount("data")).toBe(0)
    const read = await readAll(
      Object.assign(form, { whenFile: (callback: (settled: typeof file) => void) => callback(file) })
    )
    expect((read.thrown as FormRefused<Refusal>).refusal).toEqual({ kind: "unreadable" })
    expect(read.ended).toEqual({ _tag: "Refused", refusal: { kind: "unreadable" } })
  })
})
