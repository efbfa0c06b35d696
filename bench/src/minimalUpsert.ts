/**
 * The floor of a product upsert on SQLite: node:http + better-sqlite3 doing what the spec requires in the
 * fewest statements we know, on the server's own tables. Per request: the key check (one joined SELECT and
 * a constant-time hash comparison), then one `BEGIN IMMEDIATE` transaction holding the mapping and record
 * read (one join), the category mapping (create), the mapping and record writes, the category rows
 * (create), the change row and the completed idempotency row with its answer. The idempotency row is
 * written last with ON CONFLICT DO NOTHING: SQLite runs one writer at a time, so a key already present
 * means a replay, answered from the stored row after a rollback. No savepoints, no second commit.
 */
import Database from "better-sqlite3"
import { createHash, randomUUID } from "node:crypto"
import { appendChange } from "./changeSql.js"
import { recordId } from "./recordIds.js"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { readBody, send } from "./plainHttp.js"
import { idempotentAnswer, type Key, keyCheck } from "./minimalRequests.js"

interface Stored {
  readonly id: string
  readonly revision: number
  readonly data: string
  readonly category_ids: string
  readonly created_at: string
}

interface UpsertBody {
  readonly external_id: string
  readonly expected_revision?: number
  readonly name: string
  readonly category_ids?: ReadonlyArray<{ readonly external_id: string }>
}

export const minimalUpsert = (filename: string, port: number, host: string) => {
  const db = new Database(filename)
  db.pragma("busy_timeout = 5000")
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  const findRecord = db.prepare(
    `SELECT r.id, r.revision, r.data, r.category_ids, r.created_at FROM mappings m
       JOIN catalog_records r ON r.company_id = m.company_id AND r.resource = m.resource AND r.id = m.record_id
      WHERE m.company_id = ? AND m.connection_id = ? AND m.resource = 'products' AND m.external_id = ?`
  )
  const categoryOf = db.prepare(
    "SELECT record_id FROM mappings WHERE company_id = ? AND connection_id = ? AND resource = 'categories' AND external_id = ?"
  )
  const insertMapping = db.prepare(
    `INSERT INTO mappings ("company_id","connection_id","resource","external_id","record_id","created_at") VALUES (?,?,'products',?,?,?)`
  )
  const insertRecord = db.prepare(
    `INSERT INTO catalog_records ("company_id","resource","id","revision","data","category_ids","active","collection_id","brand_id","parent_id","created_at","updated_at","archived_at")
     VALUES (?,'products',?,1,?,?,0,NULL,NULL,NULL,?,?,NULL)`
  )
  const updateRecord = db.prepare(
    `UPDATE catalog_records SET "revision" = ?, "data" = ?, "updated_at" = ? WHERE company_id = ? AND resource = 'products' AND id = ? AND revision = ?`
  )
  const insertCategory = db.prepare(
    `INSERT INTO record_categories ("company_id","product_id","category_id") VALUES (?,?,?)`
  )
  const insertChange = appendChange(db)
  const begin = db.prepare("BEGIN IMMEDIATE")
  const rollback = db.prepare("ROLLBACK")

  const authenticate = keyCheck(db)
  const answer = idempotentAnswer(db)

  const write = (
    key: Key,
    body: UpsertBody,
    at: string
  ): { readonly status: number; readonly answer: Record<string, unknown> } => {
    const stored = findRecord.get(key.company_id, key.connection_id, body.external_id) as Stored | undefined
    if (stored === undefined) {
      const categoryIds = (body.category_ids ?? []).map(
        (reference) =>
          (categoryOf.get(key.company_id, key.connection_id, reference.external_id) as { record_id: string }).record_id
      )
      const id = recordId()
      const record = {
        id,
        external_id: body.external_id,
        revision: 1,
        name: body.name,
        category_ids: categoryIds,
        created_at: at,
        updated_at: at
      }
      insertMapping.run(key.company_id, key.connection_id, body.external_id, id, at)
      insertRecord.run(key.company_id, id, JSON.stringify(record), JSON.stringify(categoryIds), at, at)
      for (const category of categoryIds) insertCategory.run(key.company_id, id, category)
      insertChange.run(key.company_id, "products", id, 1, "created", key.connection_id, at, 3)
      return { status: 200, answer: { outcome: "created", record } }
    }
    if (stored.revision !== body.expected_revision) {
      return {
        status: 409,
        answer: { error: { code: "revision_conflict", details: { current_revision: stored.revision } } }
      }
    }
    const revision = stored.revision + 1
    const record = { ...JSON.parse(stored.data), name: body.name, revision, updated_at: at }
    updateRecord.run(revision, JSON.stringify(record), at, key.company_id, stored.id, stored.revision)
    insertChange.run(key.company_id, "products", stored.id, revision, "updated", key.connection_id, at, 1)
    return { status: 200, answer: { outcome: "updated", record } }
  }

  const upsert = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const requestId = randomUUID()
    const key = authenticate(req)
    if (key === undefined) return send(res, 401, { request_id: requestId })
    const idempotencyKey = String(req.headers["idempotency-key"])
    const fingerprint = createHash("sha256").update(`POST /api/v1/products/upsert\n${text}`).digest("hex")
    const body = JSON.parse(text) as UpsertBody
    const now = Date.now()
    begin.run()
    try {
      const { status, answer: written } = write(key, body, new Date(now).toISOString())
      if (status !== 200) {
        // Like the real server, a conflict is not stored: the client retries with a new revision.
        rollback.run()
        return send(res, status, { request_id: requestId, ...written })
      }
      answer(res, { key, idempotencyKey, fingerprint, nowMillis: now, requestId, status, answer: written })
    } catch (error) {
      if (db.inTransaction) rollback.run()
      send(res, 500, { request_id: requestId, error: String(error) })
    }
  }

  createServer((req, res) => {
    if (req.url === "/health") return send(res, 200, { status: "ok" })
    if (req.method === "POST" && req.url === "/api/v1/products/upsert") {
      readBody(req).then(
        (text) => upsert(req, res, text),
        () => send(res, 400, {})
      )
      return
    }
    send(res, 404, { error: "not found" })
  }).listen(port, host)
}
