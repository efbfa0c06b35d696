/**
 * The first pass over the input (totals per resource, where each resource lies in each file, category
 * parents, images, invalid lines) and the later reads of one tier's records, which open only the files
 * that hold them and only the byte range where they lie.
 */
import { Effect, type FileSystem, Result, Stream } from "effect"
import type { InputRecord } from "./Batch.js"
import { imageFolder, type Invalid, type Located, type MediaInput, read, type ReadOptions } from "./Input.js"
import { LoadError } from "./LoadError.js"
import type { LoadOptions } from "./Options.js"
import { isBundle, referencedExternalId, type Resource, resources } from "./Order.js"
import { invalidFailure, lineId, mediaId, recordId } from "./Report.js"
import type { Source } from "./Sources.js"
import * as State from "./State.js"

/** What one pass over the input found. */
export interface Scan {
  /** Records (valid or not) per resource, and images: the progress totals, in sending order. */
  readonly totals: Map<string, number>
  /** Valid records to send per resource. */
  readonly validTotals: Map<Resource, number>
  /** External ids of the categories to send (for the count per level). */
  readonly categories: Array<string>
  bundles: number
  /** Per source: the resources it holds and the byte range each occupies (JSONL). */
  readonly ranges: Map<string, Map<Resource, { start: number; end: number; line: number }>>
  readonly parents: Map<string, string | undefined>
  readonly media: Map<string, MediaInput>
  readonly invalid: Array<Invalid>
  /** Dry run: the external ids the input declares, per resource (see DryRun.ts). */
  readonly declared: Map<string, Set<string>>
}

const readOptions = (options: LoadOptions): ReadOptions => ({
  ...(options.images === undefined ? {} : { images: options.images }),
  ...(options.csvColumns === undefined ? {} : { csvColumns: options.csvColumns })
})

/** Scans the input once; `isSelected` narrows a retry round to the failures it re-sends. */
export const scanInput = (
  input: ReadonlyArray<Source>,
  options: LoadOptions,
  isSelected: (ids: ReadonlyArray<string>) => boolean
) =>
  Effect.gen(function* () {
    const dryRun = options.dryRun === true
    const scan: Scan = {
      totals: new Map(),
      validTotals: new Map(),
      categories: [],
      bundles: 0,
      ranges: new Map(),
      parents: new Map(),
      media: new Map(),
      invalid: [],
      declared: new Map()
    }
    const count = (resource: string) => scan.totals.set(resource, (scan.totals.get(resource) ?? 0) + 1)
    const declare = (resource: string, externalId: unknown) => {
      if (dryRun && typeof externalId === "string") {
        let set = scan.declared.get(resource)
        if (set === undefined) scan.declared.set(resource, (set = new Set()))
        set.add(externalId)
      }
    }
    const addMedia = (media: MediaInput) => {
      declare("media", media.externalId)
      if (scan.media.has(media.externalId) || !isSelected([mediaId(media)])) return
      scan.media.set(media.externalId, media)
    }
    if (options.images?.catalog !== undefined)
      yield* Stream.runForEach(imageFolder(options.images.catalog, "catalog"), (m) => Effect.sync(() => addMedia(m)))
    if (options.images?.option !== undefined)
      yield* Stream.runForEach(imageFolder(options.images.option, "option"), (m) => Effect.sync(() => addMedia(m)))
    for (const source of input) {
      const ranges = new Map<Resource, { start: number; end: number; line: number }>()
      scan.ranges.set(source.path, ranges)
      yield* Stream.runForEach(read(source, readOptions(options)), (item: Located) =>
        Effect.sync(() => {
          if (item._tag === "Media") return addMedia(item.media)
          if (item._tag === "Invalid") {
            if (!isSelected([State.failureId(invalidFailure(item.invalid)), lineId(item.invalid.position)])) return
            scan.invalid.push(item.invalid)
            count(item.invalid.resource ?? "invalid")
            return
          }
          const { record } = item
          declare(record.resource, record.body.external_id)
          const range = ranges.get(record.resource)
          if (range === undefined) ranges.set(record.resource, { start: item.start, end: item.end, line: item.line })
          else range.end = item.end
          if (record.resource === "categories" && typeof record.body.external_id === "string") {
            scan.parents.set(record.body.external_id, referencedExternalId(record.body.parent_id))
          }
          for (const media of item.images) addMedia(media)
          if (!isSelected([recordId(record), lineId(record.position)])) return
          if (record.resource === "products" && isBundle(record.body)) scan.bundles++
          if (record.resource === "categories") scan.categories.push(String(record.body.external_id))
          count(record.resource)
          scan.validTotals.set(record.resource, (scan.validTotals.get(record.resource) ?? 0) + 1)
        })
      )
    }
    if (scan.media.size > 0) scan.totals.set("media", scan.media.size)
    // Announce resources in sending order (media first), so that progress lists them that way.
    const ordered = new Map<string, number>()
    for (const name of ["media", ...resources, ...scan.totals.keys()])
      if (scan.totals.has(name) && !ordered.has(name)) ordered.set(name, scan.totals.get(name)!)
    return { ...scan, totals: ordered }
  })

/** The records of some resources: only the sources that hold them, only the byte range where they lie. */
export const tierRecords = (
  input: ReadonlyArray<Source>,
  scan: Scan,
  wanted: ReadonlySet<Resource>,
  options: LoadOptions
): Stream.Stream<InputRecord, LoadError, FileSystem.FileSystem> =>
  Stream.fromIterable(input).pipe(
    Stream.flatMap(
      (source) => {
        const held = Array.from(scan.ranges.get(source.path) ?? [], ([resource, range]) =>
          wanted.has(resource) ? range : undefined
        ).filter((r) => r !== undefined)
        if (held.length === 0) return Stream.empty
        const range = {
          start: Math.min(...held.map((r) => r.start)),
          end: Math.max(...held.map((r) => r.end)),
          line: held.reduce((a, b) => (b.start < a.start ? b : a)).line
        }
        return read(source, {
          ...readOptions(options),
          // CSV files need their header: they are read whole (one resource per file anyway).
          ...(source.format === "jsonl" ? { range } : {})
        })
      },
      { concurrency: 1 }
    ),
    Stream.filterMap((item) => (item._tag === "Record" ? Result.succeed(item.record) : Result.fail(undefined))),
    Stream.mapError((error) => new LoadError({ message: `reading the input again: ${error.message}`, cause: error }))
  )
