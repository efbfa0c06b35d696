import type Database from "better-sqlite3"
import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { send } from "./plainHttp.js"

/** The key of a request, as the minimal servers check it. */
export interface Key {
  readonly key_id: string
  readonly secret_hash: string
  readonly connection_id: string
  readonly company_id: string
  /** The key's scopes, JSON text as stored. */
  readonly scopes: string
}

/**
 * The key check of the minimal servers: one joined SELECT (key not revoked or expired, connection and
 * company enabled, subscription active) and a constant-time comparison of the secret's hash.
 */
export const keyCheck = (db: Database.Database) => {
  const findKey = db.prepare(
    `SELECT k.id AS key_id, k.secret_hash, k.connection_id, k.company_id, k.scopes
       FROM api_keys k JOIN connections c ON c.id = k.connection_id JOIN companies co ON co.id = k.company_id
      WHERE k.id = ? AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ?) AND c.enabled = 1 AND co.enabled = 1 AND co.subscription_active = 1`
  )
  return (req: IncomingMessage): Key | undefined => {
    const match = /^Bearer csk_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/.exec(req.headers.authorization ?? "")
    if (match === null) return undefined
    const key = findKey.get(match[1], new Date().toISOString()) as Key | undefined
    const presented = createHash("sha256").update(match[2]!).digest("hex")
    return key !== undefined && timingSafeEqual(Buffer.from(presented), Buffer.from(key.secret_hash)) ? key : undefined
  }
}

/**
 * Ends a minimal server's write: stores its answer under the Idempotency-Key as the transaction's last
 * statement (ON CONFLICT DO NOTHING), commits and sends it. SQLite runs one writer at a time, so a key
 * already present is a replay: rolled back and answered from the stored row, or refused when its
 * fingerprint differs. Returns whether the write committed.
 */
export const idempotentAnswer = (db: Database.Database) => {
  const storeAnswer = db.prepare(
    `INSERT INTO idempotency_keys ("company_id","connection_id","key","fingerprint","state","lease_until","created_at","status","response")
     VALUES (?,?,?,?,'completed',?,?,?,?) ON CONFLICT DO NOTHING`
  )
  const storedAnswer = db.prepare(
    `SELECT fingerprint, status, response FROM idempotency_keys WHERE company_id = ? AND connection_id = ? AND "key" = ?`
  )
  const commit = db.prepare("COMMIT")
  const rollback = db.prepare("ROLLBACK")
  return (
    res: ServerResponse,
    write: {
      readonly key: Key
      readonly idempotencyKey: string
      readonly fingerprint: string
      readonly nowMillis: number
      readonly requestId: string
      readonly status: number
      readonly answer: Record<string, unknown>
    }
  ): boolean => {
    const { key, idempotencyKey, fingerprint, nowMillis, requestId, status, answer } = write
    const response = JSON.stringify(answer)
    const stored = storeAnswer.run(
      key.company_id,
      key.connection_id,
      idempotencyKey,
      fingerprint,
      nowMillis + 86_400_000,
      nowMillis,
      status,
      response
    )
    if (stored.changes === 0) {
      rollback.run()
      const replay = storedAnswer.get(key.company_id, key.connection_id, idempotencyKey) as {
        fingerprint: string
        status: number
        response: string
      }
      if (replay.fingerprint !== fingerprint)
        send(res, 422, { request_id: requestId, error: { code: "idempotency_key_reused" } })
      else send(res, replay.status, { request_id: requestId, ...JSON.parse(replay.response) })
      return false
    }
    commit.run()
    send(res, status, { request_id: requestId, ...answer })
    return true
  }
}
