/**
 * The floor of a batch import on SQLite: node:http + better-sqlite3 doing what the spec requires of
 * `POST /imports` and its job, in the fewest statements we know, on the server's own tables, with one
 * worker in the same process as the requests (as the server runs).
 *
 * A submission: the key check (and catalog:write, which product records need), the Idempotency-Key's
 * form, the body's form (1 to 50 items of exactly {resource, body}), then one `BEGIN IMMEDIATE`
 * transaction holding the connection's pending count (20 at most), the job row, the records as pending
 * import rows (one multi-row INSERT) and the completed idempotency row with the answer (a key already
 * present is a replay, as in minimalUpsert.ts). The worker, between requests (`setImmediate`): claims the
 * oldest queued job, reads its pending records, decodes each body with the server's own strict upsert
 * schema, and in one transaction looks the batch's mappings up (products and categories, one SELECT
 * each), writes the new records' mappings, records, category rows and changes (one multi-row INSERT
 * each), marks the import rows (one UPDATE) and ends the job.
 * What it leaves out of an import's work: the product rules beyond the schema (normalization, defaults,
 * translations, per-part scopes), and updates: a record already mapped is left unchanged, a record of
 * another resource fails. The bench sends new products only.
 */
import { Decode, Resource } from "@catalog-sync/core"
import Database from "better-sqlite3"
import { Result } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { appendChangesSql } from "./changeSql.js"
import { idempotentAnswer, keyCheck } from "./minimalRequests.js"
import { readBody, send } from "./plainHttp.js"
import { recordId } from "./recordIds.js"

interface ProductBody {
  readonly external_id: string
  readonly name: string
  readonly category_ids?: ReadonlyArray<{ readonly external_id: string }>
}

/** An import item as the spec has it: exactly {resource, body}, a resource the import takes, an object body. */
const isImportItem = (item: unknown): item is { readonly resource: string; readonly body: object } => {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return false
  const keys = Object.keys(item)
  const { resource, body } = item as { resource?: unknown; body?: unknown }
  return (
    keys.length === 2 &&
    keys.includes("resource") &&
    keys.includes("body") &&
    (Resource.resourceNames as ReadonlyArray<unknown>).includes(resource) &&
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body)
  )
}

const idempotencyKeyForm = /^[A-Za-z0-9._:-]{8,120}$/

const maxPending = 20
const leaseMillis = 60_000

export const minimalImport = (filename: string, port: number, host: string) => {
  const db = new Database(filename)
  db.pragma("busy_timeout = 5000")
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  const authenticate = keyCheck(db)
  const answer = idempotentAnswer(db)
  const begin = db.prepare("BEGIN IMMEDIATE")
  const commit = db.prepare("COMMIT")
  const rollback = db.prepare("ROLLBACK")

  /** A multi-row statement per row count, prepared once: `make(n)` gives its text. */
  const byCount = (make: (n: number) => string) => {
    const prepared = new Map<number, Database.Statement>()
    return (n: number) => {
      let statement = prepared.get(n)
      if (statement === undefined) prepared.set(n, (statement = db.prepare(make(n))))
      return statement
    }
  }
  const rows = (n: number, row: string) => Array.from({ length: n }, () => row).join(",")
  const marks = (n: number) => rows(n, "?")
  const cases = (n: number) => Array.from({ length: n }, () => "WHEN ? THEN ?").join(" ")

  const pendingCount = db.prepare(
    "SELECT COUNT(*) AS n FROM jobs WHERE company_id = ? AND connection_id = ? AND state IN ('queued', 'running')"
  )
  const insertJob = db.prepare(
    `INSERT INTO jobs (id, company_id, connection_id, key_id, kind, state, scopes, run, attempts, queued_at, lease_owner, lease_until, failure, created_at, started_at, finished_at, updated_at, trace_parent, queue_seq)
     VALUES (?, ?, ?, ?, 'import', 'queued', ?, 1, 0, ?, NULL, NULL, NULL, ?, NULL, NULL, ?, NULL, (SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM jobs))`
  )
  const insertItems = byCount(
    (n) =>
      `INSERT INTO import_records (job_id, idx, resource, body, external_id, status, outcome, record_id, error, run, updated_at) VALUES ${rows(n, "(?, ?, ?, ?, ?, 'pending', NULL, NULL, NULL, 1, ?)")}`
  )
  const claim = db.prepare(
    `UPDATE jobs SET state = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1, started_at = ?, updated_at = ?
      WHERE id = (SELECT id FROM jobs INDEXED BY jobs_pending WHERE state IN ('queued', 'running') AND state = 'queued' AND kind = 'import' ORDER BY queue_seq LIMIT 1)
      RETURNING id, company_id, connection_id`
  )
  const pendingItems = db.prepare(
    "SELECT idx, resource, body FROM import_records WHERE job_id = ? AND status = 'pending' ORDER BY idx"
  )
  const mappingsIn = byCount(
    (n) =>
      `SELECT external_id, record_id FROM mappings WHERE company_id = ? AND connection_id = ? AND resource = ? AND external_id IN (${marks(n)})`
  )
  const insertMappings = byCount(
    (n) =>
      `INSERT INTO mappings ("company_id","connection_id","resource","external_id","record_id","created_at") VALUES ${rows(n, "(?,?,'products',?,?,?)")}`
  )
  const insertRecords = byCount(
    (n) =>
      `INSERT INTO catalog_records ("company_id","resource","id","revision","data","category_ids","active","collection_id","brand_id","parent_id","created_at","updated_at","archived_at") VALUES ${rows(n, "(?,'products',?,1,?,?,0,NULL,NULL,NULL,?,?,NULL)")}`
  )
  const insertCategories = byCount(
    (n) => `INSERT INTO record_categories ("company_id","product_id","category_id") VALUES ${rows(n, "(?,?,?)")}`
  )
  const insertChanges = byCount((n) => appendChangesSql(n, "'products', ?, 1, 'created', ?, ?, 3"))
  const markItems = byCount(
    (n) =>
      `UPDATE import_records SET status = CASE idx ${cases(n)} END, outcome = CASE idx ${cases(n)} END,
         record_id = CASE idx ${cases(n)} END, error = CASE idx ${cases(n)} END, updated_at = ?
       WHERE job_id = ? AND idx IN (${marks(n)}) AND status = 'pending'`
  )
  const finishJob = db.prepare(
    "UPDATE jobs SET state = 'completed', finished_at = ?, updated_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND state = 'running'"
  )
  const failJob = db.prepare(
    "UPDATE jobs SET state = 'failed', failure = ?, finished_at = ?, updated_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND state = 'running'"
  )
  // A product document as the server stores them (its defaults), per company: its product p0, as the raw
  // import takes it.
  const templates = new Map<string, Record<string, unknown>>()
  const findTemplate = db.prepare(
    `SELECT r.data FROM mappings m JOIN catalog_records r ON r.company_id = m.company_id AND r.resource = m.resource AND r.id = m.record_id
      WHERE m.company_id = ? AND m.resource = 'products' AND m.external_id = 'p0' LIMIT 1`
  )
  const templateOf = (companyId: string) => {
    let template = templates.get(companyId)
    if (template === undefined) {
      const row = findTemplate.get(companyId) as { data: string } | undefined
      templates.set(companyId, (template = row === undefined ? {} : (JSON.parse(row.data) as Record<string, unknown>)))
    }
    return template
  }

  const submit = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const requestId = randomUUID()
    const key = authenticate(req)
    if (key === undefined) return send(res, 401, { request_id: requestId, error: { code: "unauthorized" } })
    let body: { readonly records?: ReadonlyArray<unknown> } | null
    try {
      body = JSON.parse(text) as typeof body
    } catch {
      return send(res, 400, { request_id: requestId, error: { code: "malformed_json" } })
    }
    if (!(JSON.parse(key.scopes) as ReadonlyArray<string>).includes("catalog:write"))
      return send(res, 403, { request_id: requestId, error: { code: "insufficient_scope" } })
    const idempotencyKey = req.headers["idempotency-key"]
    if (typeof idempotencyKey !== "string" || !idempotencyKeyForm.test(idempotencyKey))
      return send(res, 400, { request_id: requestId, error: { code: "idempotency_key_invalid" } })
    const records = typeof body === "object" && body !== null ? body.records : undefined
    if (!Array.isArray(records) || records.length === 0 || records.length > 50 || !records.every(isImportItem))
      return send(res, 422, { request_id: requestId, error: { code: "validation_failed" } })
    const fingerprint = createHash("sha256").update(`POST /api/v1/imports\n${text}`).digest("hex")
    const now = Date.now()
    const at = new Date(now).toISOString()
    begin.run()
    try {
      if ((pendingCount.get(key.company_id, key.connection_id) as { n: number }).n >= maxPending) {
        rollback.run()
        return send(res, 429, { request_id: requestId, error: { code: "job_limit_reached" } })
      }
      const id = recordId()
      insertJob.run(id, key.company_id, key.connection_id, key.key_id, key.scopes, now, at, at)
      insertItems(records.length).run(
        records.flatMap((record: { resource: string; body: { external_id?: unknown } }, i) => [
          id,
          i,
          record.resource,
          JSON.stringify(record.body),
          typeof record.body.external_id === "string" ? record.body.external_id : null,
          at
        ])
      )
      const job = { id, kind: "import", state: "queued", created_at: at, counts: { total: records.length } }
      if (answer(res, { key, idempotencyKey, fingerprint, nowMillis: now, requestId, status: 202, answer: { job } }))
        wake()
    } catch (error) {
      if (db.inTransaction) rollback.run()
      send(res, 500, { request_id: requestId, error: String(error) })
    }
  }

  /** Applies one claimed job's pending records in one transaction. */
  const apply = (job: { readonly id: string; readonly company_id: string; readonly connection_id: string }) => {
    // Each body through the server's own strict upsert schema; the floor writes products only.
    const items = (pendingItems.all(job.id) as Array<{ idx: number; resource: string; body: string }>).map((item) => {
      const decoded = item.resource === "products" ? Decode.decodeUpsert("products", JSON.parse(item.body)) : undefined
      return {
        idx: item.idx,
        body:
          decoded !== undefined && Result.isSuccess(decoded) ? (decoded.success as unknown as ProductBody) : undefined
      }
    })
    const at = new Date().toISOString()
    const bodies = items.flatMap(({ body }) => (body === undefined ? [] : [body]))
    const lookUp = (resource: string, externalIds: ReadonlyArray<string>) =>
      new Map(
        externalIds.length === 0
          ? []
          : (
              mappingsIn(externalIds.length).all(job.company_id, job.connection_id, resource, ...externalIds) as Array<{
                external_id: string
                record_id: string
              }>
            ).map((row) => [row.external_id, row.record_id] as const)
      )
    begin.run()
    try {
      const mapped = lookUp("products", Array.from(new Set(bodies.map((b) => b.external_id))))
      const categories = lookUp(
        "categories",
        Array.from(new Set(bodies.flatMap((b) => (b.category_ids ?? []).map((c) => c.external_id))))
      )
      const template = templateOf(job.company_id)
      const created: Array<{ id: string; body: ProductBody; categoryIds: ReadonlyArray<string> }> = []
      const results = items.map(({ idx, body }) => {
        if (body === undefined)
          return { idx, status: "failed", outcome: null, recordId: null, error: '{"code":"validation_failed"}' }
        const known = mapped.get(body.external_id)
        if (known !== undefined) return { idx, status: "applied", outcome: "unchanged", recordId: known, error: null }
        const categoryIds = (body.category_ids ?? []).map((c) => categories.get(c.external_id))
        if (categoryIds.some((c) => c === undefined))
          return { idx, status: "failed", outcome: null, recordId: null, error: '{"code":"unresolved_reference"}' }
        const id = recordId()
        mapped.set(body.external_id, id)
        created.push({ id, body, categoryIds: categoryIds as ReadonlyArray<string> })
        return { idx, status: "applied", outcome: "created", recordId: id, error: null }
      })
      const c = job.company_id
      if (created.length > 0) {
        insertMappings(created.length).run(created.flatMap((r) => [c, job.connection_id, r.body.external_id, r.id, at]))
        insertRecords(created.length).run(
          created.flatMap((r) => [
            c,
            r.id,
            JSON.stringify({ ...template, name: r.body.name, category_ids: r.categoryIds }),
            JSON.stringify(r.categoryIds),
            at,
            at
          ])
        )
        const links = created.flatMap((r) => r.categoryIds.map((category) => [c, r.id, category]))
        if (links.length > 0) insertCategories(links.length).run(links.flat())
        insertChanges(created.length).run([...created.flatMap((r) => [r.id, job.connection_id, at]), c, c])
      }
      if (results.length > 0)
        markItems(results.length).run([
          ...results.flatMap((r) => [r.idx, r.status]),
          ...results.flatMap((r) => [r.idx, r.outcome]),
          ...results.flatMap((r) => [r.idx, r.recordId]),
          ...results.flatMap((r) => [r.idx, r.error]),
          at,
          job.id,
          ...results.map((r) => r.idx)
        ])
      finishJob.run(at, at, job.id)
      commit.run()
    } catch (error) {
      if (db.inTransaction) rollback.run()
      throw error
    }
  }

  // One worker: a job per turn of the event loop, so that requests are served between two jobs.
  const workerId = randomUUID()
  let scheduled = false
  const wake = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(work)
  }
  const work = () => {
    scheduled = false
    const now = Date.now()
    const at = new Date(now).toISOString()
    const job = claim.get(workerId, now + leaseMillis, at, at) as
      { readonly id: string; readonly company_id: string; readonly connection_id: string } | undefined
    if (job === undefined) return
    try {
      apply(job)
    } catch (error) {
      // Ended failed, as the server's worker ends a job it cannot finish, so that nothing waits on it.
      process.stderr.write(`minimal import: job ${job.id} failed: ${String(error)}\n`)
      failJob.run(JSON.stringify({ code: "internal_error", message: String(error) }), at, at, job.id)
    }
    wake()
  }

  createServer((req, res) => {
    if (req.url === "/health") return send(res, 200, { status: "ok" })
    if (req.method === "POST" && req.url === "/api/v1/imports") {
      readBody(req).then(
        (text) => submit(req, res, text),
        () => send(res, 400, {})
      )
      return
    }
    send(res, 404, { error: "not found" })
  }).listen(port, host)
  wake()
}
