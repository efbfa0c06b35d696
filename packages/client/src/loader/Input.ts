/**
 * The load's input: JSONL (one `{resource, body}` a line, or one body a line in a file named after its
 * resource), CSV of products and categories (see CsvMapping.ts), and images (a folder, a CSV column of
 * file paths, or `media` lines). Files are read as streams of lines, never whole.
 */
import { Effect, FileSystem, Option, Result, Stream } from "effect"
import type { PlatformError } from "effect/PlatformError"
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { type InputRecord, maxBytes, type Position, recordBytes } from "./Batch.js"
import { type CsvRow, rows } from "./Csv.js"
import { type CsvResource, type HeaderMap, mapper } from "./CsvMapping.js"
import { lines } from "./Lines.js"
import { InputError } from "./LoadError.js"
import { isResource } from "./Order.js"
import type { Source } from "./Sources.js"

export { InputError } from "./LoadError.js"
export { type Format, resourceOfName, type Source, sources } from "./Sources.js"

export type MediaPurpose = "catalog" | "option"

/** An image to upload before the records that reference it. */
export interface MediaInput {
  readonly externalId: string
  readonly name: string
  readonly purpose: MediaPurpose
  /** Where the file is (absolute). */
  readonly file: string
  readonly position: Position
}

/** A line or row that cannot be sent, reported as `invalid_input` at its position. */
export interface Invalid {
  readonly position: Position
  readonly resource: string | undefined
  readonly externalId: string | undefined
  readonly path: string
  readonly message: string
}

export type Item =
  | { readonly _tag: "Record"; readonly record: InputRecord; readonly images: ReadonlyArray<MediaInput> }
  | { readonly _tag: "Media"; readonly media: MediaInput }
  | { readonly _tag: "Invalid"; readonly invalid: Invalid }

/** An item with the byte range of its line(s), so that a later pass can read only part of a file. */
export type Located = Item & { readonly start: number; readonly end: number; readonly line: number }

export interface ImageFolders {
  /** Images of products and categories: external_id is the path within the folder. CSV paths resolve here. */
  readonly catalog?: string | undefined
  /** Images of customization options (purpose `option`). */
  readonly option?: string | undefined
}

export interface ReadOptions {
  readonly images?: ImageFolders
  readonly csvColumns?: Partial<Record<CsvResource, HeaderMap>>
  /** Read only this byte range of a JSONL file; `line` is the number of the line at `start`. */
  readonly range?: { readonly start: number; readonly end: number; readonly line: number }
}

const imageExtensions = new Set([".jpg", ".jpeg", ".png", ".webp"])
const toPosix = (path: string) => path.split(sep).join("/")

/** The media external_id and file of an image path written in a CSV row or a media line. */
export const imageOf = (path: string, relativeTo: string, folders: ImageFolders | undefined) => {
  const root = folders?.catalog
  const file = isAbsolute(path) ? path : resolve(root ?? relativeTo, path)
  const externalId = root === undefined ? toPosix(path).replace(/^(\.\/)+/, "") : toPosix(relative(root, file))
  return { externalId, file }
}

const mediaName = (file: string) => basename(file, extname(file)).slice(0, 200) || basename(file).slice(0, 200)

/** Every image file under a folder (recursively, in name order), as media of `purpose`. */
export const imageFolder = (
  folder: string,
  purpose: MediaPurpose
): Stream.Stream<MediaInput, InputError, FileSystem.FileSystem> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const names = yield* fs
        .readDirectory(folder, { recursive: true })
        .pipe(Effect.mapError(() => new InputError({ message: `cannot list ${folder}` })))
      const images = names.filter((name) => imageExtensions.has(extname(name).toLowerCase())).sort()
      return Stream.fromIterable(
        images.map((name) => ({
          externalId: toPosix(name),
          name: mediaName(name),
          purpose,
          file: resolve(folder, name),
          position: { file: join(folder, name), line: 0 }
        }))
      )
    })
  )

const invalid = (
  position: Position,
  message: string,
  rest: { resource?: string | undefined; externalId?: string | undefined; path?: string } = {}
): Item => ({
  _tag: "Invalid",
  invalid: { position, resource: rest.resource, externalId: rest.externalId, path: rest.path ?? "$", message }
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const externalIdOf = (body: unknown): string | undefined => {
  const id = isObject(body) ? body.external_id : undefined
  return typeof id === "string" ? id : undefined
}

/** A `media` body: `{external_id, name?, purpose?, file}`, the file relative to the input file. */
const mediaItem = (
  body: Record<string, unknown>,
  position: Position,
  source: Source,
  folders: ImageFolders | undefined
): Item => {
  const externalId = body.external_id
  const file = body.file
  const purpose = body.purpose ?? "catalog"
  if (typeof externalId !== "string" || externalId === "")
    return invalid(position, "a media line needs an external_id", { resource: "media" })
  if (typeof file !== "string" || file === "")
    return invalid(position, "a media line needs a file", { resource: "media", externalId, path: "$.file" })
  if (purpose !== "catalog" && purpose !== "option")
    return invalid(position, "purpose is catalog or option", { resource: "media", externalId, path: "$.purpose" })
  const root = purpose === "option" ? folders?.option : folders?.catalog
  const path = isAbsolute(file) ? file : resolve(root ?? dirname(source.path), file)
  const name = typeof body.name === "string" && body.name !== "" ? body.name : mediaName(path)
  return { _tag: "Media", media: { externalId, name, purpose, file: path, position } }
}

/** One JSONL line of `source` as an item (undefined for a blank line). */
export const jsonLine = (
  text: string,
  position: Position,
  source: Source,
  folders?: ImageFolders
): Item | undefined => {
  if (text.trim() === "") return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return invalid(position, `not JSON: ${(error as Error).message}`)
  }
  if (!isObject(value)) return invalid(position, "a line must be a JSON object")
  const envelope = Object.keys(value).length === 2 && "resource" in value && "body" in value
  let resource: unknown = source.resource
  let body: unknown = value
  if (source.resource === undefined || envelope) {
    if (!envelope) return invalid(position, "a line must be {resource, body} (no other keys)")
    resource = value.resource
    body = value.body
  }
  if (!isObject(body)) return invalid(position, "body must be a JSON object", { path: "$.body" })
  if (resource === "media") return mediaItem(body, position, source, folders)
  if (!isResource(resource))
    return invalid(position, `unknown resource ${JSON.stringify(resource)}`, {
      externalId: externalIdOf(body),
      path: "$.resource"
    })
  const record: InputRecord = { position, resource, body, json: JSON.stringify(body) }
  if (recordBytes(record) > maxBytes)
    return invalid(position, "the record is larger than an import request may be (1 MB)", {
      resource,
      externalId: externalIdOf(body)
    })
  return { _tag: "Record", record, images: [] }
}

const readBytes = (path: string, range: ReadOptions["range"]) =>
  Stream.unwrap(
    Effect.map(FileSystem.FileSystem, (fs) =>
      fs.stream(path, {
        chunkSize: 64 * 1024,
        ...(range === undefined ? {} : { offset: range.start, bytesToRead: range.end - range.start })
      })
    )
  )

/** The items of one source, in file order, each with its line's byte range. */
export const read = (
  source: Source,
  options: ReadOptions = {}
): Stream.Stream<Located, PlatformError | InputError, FileSystem.FileSystem> => {
  const bytes = readBytes(source.path, options.range)
  const fileLines = lines(
    bytes,
    options.range === undefined ? {} : { firstLine: options.range.line, firstOffset: options.range.start }
  )
  if (source.format === "jsonl") {
    return fileLines.pipe(
      Stream.filterMap((line): Result.Result<Located, undefined> => {
        const position = { file: source.path, line: line.number }
        const item = line.oversized
          ? invalid(position, "the line is longer than 4 MiB")
          : jsonLine(line.text, position, source, options.images)
        return item === undefined
          ? Result.fail(undefined)
          : Result.succeed({ ...item, start: line.start, end: line.end, line: line.number })
      })
    )
  }
  return csvItems(source, rows(fileLines), options)
}

const csvItems = <E, R>(source: Source, csvRows: Stream.Stream<CsvRow, E, R>, options: ReadOptions) =>
  Stream.suspend(() => {
    const resource = source.resource as CsvResource
    let map: ReturnType<typeof mapper> | undefined
    const csvDir = dirname(source.path)
    const images = new Map<string, MediaInput>()
    const imageId = (path: string) => {
      const found = imageOf(path, csvDir, options.images)
      images.set(path, {
        externalId: found.externalId,
        name: mediaName(found.file),
        purpose: "catalog",
        file: found.file,
        position: { file: source.path, line: 0 }
      })
      return found.externalId
    }
    return csvRows.pipe(
      Stream.mapEffect((row) =>
        Effect.gen(function* () {
          if (map === undefined) {
            map = mapper(resource, row.fields, {
              imageId,
              ...(options.csvColumns?.[resource] === undefined ? {} : { headerMap: options.csvColumns[resource] })
            })
            if (Result.isFailure(map)) return yield* new InputError({ message: `${source.path}: ${map.failure}` })
            return Option.none<Located>()
          }
          if (Result.isFailure(map)) return Option.none<Located>()
          const position = { file: source.path, line: row.line }
          images.clear()
          const mapped = map.success(row.fields)
          const located = { start: row.start, end: row.end, line: row.line }
          if (Result.isFailure(mapped)) {
            return Option.some<Located>({
              ...invalid(position, mapped.failure.message, { resource, path: mapped.failure.path }),
              ...located
            })
          }
          const body = mapped.success.body
          const record: InputRecord = { position, resource, body, json: JSON.stringify(body) }
          if (recordBytes(record) > maxBytes) {
            return Option.some<Located>({
              ...invalid(position, "the record is larger than an import request may be (1 MB)", {
                resource,
                externalId: externalIdOf(body)
              }),
              ...located
            })
          }
          const rowImages = Array.from(images.values(), (media) => ({ ...media, position }))
          return Option.some<Located>({ _tag: "Record", record, images: rowImages, ...located })
        })
      ),
      Stream.filterMap((item) => Result.fromOption(item, () => undefined))
    )
  })
