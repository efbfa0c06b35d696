/**
 * Reference connector: a two-way sync between a folder of JSON files (a stand-in for an ERP or shop) and
 * a Catalog Sync server, written with the Promise client so that it reads like plain connector code.
 *
 * Folder layout: `<dir>/categories/<external_id>.json` and `<dir>/products/<external_id>.json` hold the
 * synced fields of each record; `<dir>/.sync-state.json` holds the change-feed cursor and, per file, the
 * record id, its revision and the last synced content (the merge base).
 *
 * One cycle (`syncOnce`):
 * 1. First run: initial export. Page every list, write a file per record, and keep the first list's
 *    `change_cursor`. Records this connection has never mapped are named by their id and mapped on
 *    their first push with `target_id`.
 * 2. Pull: follow GET /changes from the cursor, skipping our own connection's changes (echo
 *    suppression), apply each change to its file, and persist `next_cursor` after every page.
 * 3. Push: upsert every file that differs from its merge base, with `expected_revision`.
 *
 * Merge policy (the business decision the API leaves to connectors): a three-way merge per field. A
 * field changed only locally takes the local value, a field changed only on the server takes the
 * server's, and a field changed on both sides takes the local value: the folder is the source system.
 *
 * Failures: a file that cannot be pushed (not JSON, or refused by the API) is reported with its name, its
 * failing fields and the API's message, and the cycle goes on with the other files; the file is tried
 * again next cycle. A failure that no file can get past (the server unreachable, the key refused) ends
 * the cycle. Nothing is written to the folder before the server has answered.
 */
import { createClient, type PromiseClient } from "@catalog-sync/client"
import { Schema, SchemaIssue } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"

/** The resources this connector syncs, and the fields it owns in each. */
export const syncedFields = {
  categories: ["name", "description"],
  products: ["name", "sku", "category_ids", "price", "active"]
} as const
export type SyncedResource = keyof typeof syncedFields
const resources = Object.keys(syncedFields) as ReadonlyArray<SyncedResource>

type Doc = Record<string, unknown>

interface Entry {
  readonly id: string
  readonly revision: number
  /** The content both sides agreed on at the last sync: the merge base. */
  readonly base: Doc
  /** Whether this connection has mapped the record to the file's external id yet. */
  readonly mapped: boolean
}

interface State {
  cursor: string | null
  entries: Record<string, Entry>
}

export interface SyncOptions {
  readonly dir: string
  readonly baseUrl: string
  readonly apiKey: string
  readonly appName?: string
  readonly appVersion?: string
}

/** A file one cycle could not push, and why. */
export interface FileFailure {
  /** The file, relative to the folder: `products/p1.json`. */
  readonly file: string
  /** The API's `error.code`, or `invalid_json` / `invalid_request` for a file that never reached the API. */
  readonly code: string
  readonly message: string
  /** The failing fields as JSON paths in the file (`$.price`), each with its message. */
  readonly fields: ReadonlyArray<{ readonly path: string; readonly message: string }>
  /** The API's request id, to share with support. */
  readonly request_id?: string
}

/** What one cycle did. */
export interface SyncReport {
  readonly exported: number
  readonly pulled: number
  readonly pushed: number
  readonly merged: number
  /** Files left as they were because they could not be pushed; tried again next cycle. */
  readonly failed: ReadonlyArray<FileFailure>
}

type Field = { readonly path: string; readonly message: string }

const jsonPath = (path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${String(key)}`), "$")

/** A schema failure as one issue per field, a property the schema does not know said so in words. */
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "UnexpectedKey" ? "is not an allowed property" : SchemaIssue.defaultLeafHook(issue)
})

/**
 * Why a file could not be pushed, or `undefined` when the failure is not the file's: the server is
 * unreachable, the key is refused, or the server failed, and every other file would fail alike.
 */
export const fileFailure = (file: string, error: unknown): FileFailure | undefined => {
  if (error instanceof SyntaxError)
    return { file, code: "invalid_json", message: `not valid JSON: ${error.message}`, fields: [] }
  const tagged = error as {
    _tag?: string
    status?: number
    code?: string
    message?: string
    details?: unknown
    request_id?: string
    cause?: unknown
  }
  if (tagged._tag === "InvalidRequest") {
    // Checked against the contract before sending: the issues are in the body, under `payload`.
    const issues = Schema.isSchemaError(tagged.cause) ? formatIssues(tagged.cause.issue).issues : []
    const fields = issues.map((issue) => {
      const path = (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
      return { path: jsonPath(path[0] === "payload" ? path.slice(1) : path), message: issue.message }
    })
    return { file, code: "invalid_request", message: "the file does not match the API's schema", fields }
  }
  if (
    (tagged._tag === "CatalogSyncError" || tagged._tag === "RevisionConflict") &&
    tagged.status !== undefined &&
    tagged.status !== 401 &&
    tagged.status < 500
  ) {
    const fields = Array.isArray(tagged.details)
      ? (tagged.details as ReadonlyArray<Field>).filter((d) => typeof d?.path === "string")
      : []
    return {
      file,
      code: tagged.code ?? "unknown",
      message: tagged.message ?? "",
      fields: fields.map((d) => ({ path: d.path, message: d.message })),
      ...(tagged.request_id === undefined ? {} : { request_id: tagged.request_id })
    }
  }
  return undefined
}

const stable = (doc: Doc) => JSON.stringify(doc, Object.keys(doc).sort())
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Writes a file atomically (temp file + rename): a crash never leaves half a JSON file. */
const writeJson = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(`${path}.tmp`, `${JSON.stringify(value, null, 2)}\n`)
  renameSync(`${path}.tmp`, path)
}

/** The synced fields of a server record, as the folder keeps them. */
const toDoc = (resource: SyncedResource, record: Doc): Doc =>
  // Unset values (null) stay out of the file: the bodies do not accept null for every field (sku).
  Object.fromEntries(
    syncedFields[resource].filter((field) => record[field] != null).map((field) => [field, record[field]])
  )

/** Three-way merge of one record: see the merge policy above. */
export const merge = (base: Doc, local: Doc, remote: Doc): Doc => {
  const out: Doc = {}
  for (const field of new Set([...Object.keys(base), ...Object.keys(local), ...Object.keys(remote)])) {
    const localChanged = !same(local[field], base[field])
    const value = localChanged ? local[field] : remote[field]
    if (value !== undefined) out[field] = value
  }
  return out
}

/** A connector over one folder. */
export class FolderSync {
  private readonly client: PromiseClient
  private readonly statePath: string

  constructor(private readonly options: SyncOptions) {
    this.client = createClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      appName: options.appName ?? "folder-sync",
      appVersion: options.appVersion ?? "0.1.0"
    })
    this.statePath = join(options.dir, ".sync-state.json")
  }

  private load(): State {
    return existsSync(this.statePath)
      ? (JSON.parse(readFileSync(this.statePath, "utf8")) as State)
      : { cursor: null, entries: {} }
  }

  private save(state: State) {
    writeJson(this.statePath, state)
  }

  private file(resource: SyncedResource, externalId: string) {
    return join(this.options.dir, resource, `${externalId}.json`)
  }

  /** The file's content; throws a SyntaxError for a file that is not a JSON object. */
  private readLocal(resource: SyncedResource, externalId: string): Doc | undefined {
    const path = this.file(resource, externalId)
    if (!existsSync(path)) return undefined
    const doc: unknown = JSON.parse(readFileSync(path, "utf8"))
    if (typeof doc !== "object" || doc === null || Array.isArray(doc))
      throw new SyntaxError("the file must hold one JSON object")
    return doc as Doc
  }

  /** The file's content, or `undefined` when it is missing or not valid JSON (the push step reports that). */
  private readLocalIfValid(resource: SyncedResource, externalId: string): Doc | undefined {
    try {
      return this.readLocal(resource, externalId)
    } catch {
      return undefined
    }
  }

  /** Runs one cycle: export (first run only), pull, push. */
  async syncOnce(): Promise<SyncReport> {
    const state = this.load()
    let exported = 0
    if (state.cursor === null) exported = await this.exportAll(state)
    const pulled = await this.pull(state)
    const { pushed, merged, failed } = await this.push(state)
    return { exported, pulled, pushed, merged, failed }
  }

  /** Releases the client. */
  close() {
    return this.client.close()
  }

  private async exportAll(state: State): Promise<number> {
    let count = 0
    let firstCursor: string | undefined
    for (const resource of resources) {
      const { records, changeCursor } = await this.client.exportAll(resource)
      // The first list's cursor was taken before any list was read: following the feed from it misses nothing.
      firstCursor ??= changeCursor
      for (const record of records as ReadonlyArray<
        Doc & { id: string; revision: number; external_id: string | null }
      >) {
        const externalId = record.external_id ?? record.id
        const doc = toDoc(resource, record)
        writeJson(this.file(resource, externalId), doc)
        state.entries[`${resource}/${externalId}`] = {
          id: record.id,
          revision: record.revision,
          base: doc,
          mapped: record.external_id !== null
        }
        count++
      }
    }
    // A folder per resource, for new files, once the server has answered (an unreachable one leaves none).
    for (const resource of resources) mkdirSync(join(this.options.dir, resource), { recursive: true })
    state.cursor = firstCursor ?? null
    this.save(state)
    return count
  }

  private async pull(state: State): Promise<number> {
    let applied = 0
    await this.client.followChanges({
      cursor: state.cursor ?? undefined,
      resources,
      onChanges: async (changes) => {
        for (const change of changes) {
          const resource = change.resource as SyncedResource
          const key = Object.keys(state.entries).find(
            (k) => k.startsWith(`${resource}/`) && state.entries[k]!.id === change.id
          )
          const externalId = change.external_id ?? (key === undefined ? change.id : key.slice(resource.length + 1))
          const path = this.file(resource, externalId)
          const entry = state.entries[`${resource}/${externalId}`]
          if (change.operation === "archived") {
            rmSync(path, { force: true })
            delete state.entries[`${resource}/${externalId}`]
            applied++
            continue
          }
          if (entry !== undefined && entry.revision >= change.revision) continue
          const record = (await this.client.get(resource, change.id)) as unknown as Doc & { revision: number }
          const remote = toDoc(resource, record)
          // A file that is not valid JSON stays as the user left it; once fixed, its push conflicts and merges.
          if (existsSync(path) && this.readLocalIfValid(resource, externalId) === undefined) continue
          const local = this.readLocal(resource, externalId)
          // A file edited since the last sync keeps its edits; the push step sends the merged result.
          const next = local === undefined || entry === undefined ? remote : merge(entry.base, local, remote)
          writeJson(path, next)
          state.entries[`${resource}/${externalId}`] = {
            id: change.id,
            revision: record.revision,
            base: remote,
            mapped: change.external_id !== null
          }
          applied++
        }
      },
      // Persisted after every call, also for an empty or fully filtered page (sync flow, step 4).
      saveCursor: (cursor) => {
        state.cursor = cursor
        this.save(state)
      }
    })
    return applied
  }

  private async push(state: State): Promise<{ pushed: number; merged: number; failed: ReadonlyArray<FileFailure> }> {
    const counts = { pushed: 0, merged: 0 }
    const failed: Array<FileFailure> = []
    for (const resource of resources) {
      const folder = join(this.options.dir, resource)
      if (!existsSync(folder)) continue
      for (const name of readdirSync(folder).filter((n) => n.endsWith(".json"))) {
        try {
          if (await this.pushFile(state, resource, name.slice(0, -".json".length), () => counts.merged++))
            counts.pushed++
        } catch (error) {
          const failure = fileFailure(`${resource}/${name}`, error)
          if (failure === undefined) throw error
          failed.push(failure)
        }
      }
    }
    return { ...counts, failed }
  }

  /** Pushes one file when it differs from its merge base; says whether it did. */
  private async pushFile(
    state: State,
    resource: SyncedResource,
    externalId: string,
    onMerge: () => void
  ): Promise<boolean> {
    const key = `${resource}/${externalId}`
    const local = this.readLocal(resource, externalId)!
    const entry = state.entries[key]
    if (entry !== undefined && stable(entry.base) === stable(local)) return false
    // Products carry a price, so they are written in combined mode (catalog:write and prices:write).
    const mode = resource === "products" ? { mode: "combined" } : {}
    // A record first seen through another connection is mapped to this file's name on its first push.
    const mapping = entry !== undefined && !entry.mapped ? { target_id: entry.id } : {}
    const body = { ...local, ...mode, external_id: externalId, expected_revision: entry?.revision ?? 0, ...mapping }
    const result = await this.client.upsertResolving(resource, body as never, ({ current }) => {
      onMerge()
      const remote = toDoc(resource, current as unknown as Doc)
      return { ...merge(entry?.base ?? {}, local, remote), external_id: externalId, ...mapping, ...mode } as never
    })
    const record = result.record as unknown as Doc & { id: string; revision: number }
    const doc = toDoc(resource, record)
    writeJson(this.file(resource, externalId), doc)
    state.entries[key] = { id: record.id, revision: record.revision, base: doc, mapped: true }
    this.save(state)
    return true
  }
}
