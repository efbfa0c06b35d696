/**
 * The input files of a load, from its `[resource=]path` arguments: which files, in which format, holding
 * which resource. Reading them is Input.ts.
 */
import { Effect, FileSystem } from "effect"
import { basename, extname, join } from "node:path"
import { csvResources } from "./CsvMapping.js"
import { InputError } from "./LoadError.js"
import { type Resource, resources } from "./Order.js"
import { isOwnFile } from "./Paths.js"

export type Format = "jsonl" | "csv"

export interface Source {
  /** The path as given or found (positions and the state name files by it). */
  readonly path: string
  readonly format: Format
  /** The one resource of the file; undefined for JSONL of `{resource, body}` lines. */
  readonly resource: Resource | "media" | undefined
}

const dataExtensions: Readonly<Record<string, Format>> = { ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv" }
const resourceNames: ReadonlyArray<Resource | "media"> = [...resources, "media"]

/** The resource a file name announces: `products.csv`, `categories-2024.jsonl`, `media.jsonl`. */
export const resourceOfName = (path: string): Resource | "media" | undefined => {
  const stem = basename(path, extname(path)).toLowerCase()
  return resourceNames.find(
    (name) => stem === name || stem.startsWith(`${name}.`) || stem.startsWith(`${name}-`) || stem.startsWith(`${name}_`)
  )
}

/**
 * The sources of `[resource=]path` arguments: a folder stands for its .jsonl, .ndjson and .csv files (in
 * name order, without the loader's own state and report files); a file's resource comes from the prefix or
 * its name, JSONL without one holds `{resource, body}` lines.
 */
export const sources = (
  specs: ReadonlyArray<string>
): Effect.Effect<Array<Source>, InputError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const out: Array<Source> = []
    for (const spec of specs) {
      const at = spec.indexOf("=")
      const named =
        at > 0 && (resourceNames as ReadonlyArray<string>).includes(spec.slice(0, at))
          ? (spec.slice(0, at) as Resource | "media")
          : undefined
      const path = named === undefined ? spec : spec.slice(at + 1)
      const info = yield* fs.stat(path).pipe(Effect.mapError(() => new InputError({ message: `cannot read ${path}` })))
      const files =
        info.type === "Directory"
          ? (yield* fs
              .readDirectory(path)
              .pipe(Effect.mapError(() => new InputError({ message: `cannot list ${path}` }))))
              .filter((name) => dataExtensions[extname(name).toLowerCase()] !== undefined && !isOwnFile(name))
              .sort()
              .map((name) => join(path, name))
          : [path]
      for (const file of files) {
        const format = dataExtensions[extname(file).toLowerCase()]
        if (format === undefined) return yield* new InputError({ message: `${file}: not .jsonl, .ndjson or .csv` })
        const resource = named ?? resourceOfName(file)
        if (format === "csv" && !(csvResources as ReadonlyArray<string>).includes(resource ?? "")) {
          return yield* new InputError({
            message: `${file}: CSV files hold products or categories; name the file after one (products.csv) or write products=${file}`
          })
        }
        out.push({ path: file, format, resource })
      }
    }
    return out
  })
