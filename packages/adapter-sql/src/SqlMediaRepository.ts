import { Ids, Media, MediaRepository } from "@catalog-sync/core"
import { SqlClient } from "effect/sql"
import { type Context, Effect, Layer, Option, Schema } from "effect"
import { refineErrors } from "./internal/errors.js"
import { Millis } from "./internal/rows.js"
import { inList } from "./internal/inList.js"
import { span } from "./internal/spans.js"

/** A row of `media`. */
const MediaRow = Schema.Struct({
  id: Ids.RecordId,
  company_id: Ids.CompanyId,
  connection_id: Ids.ConnectionId,
  external_id: Schema.String,
  name: Schema.String,
  purpose: Media.MediaPurpose,
  state: Media.MediaState,
  job_id: Schema.String,
  source_sha256: Schema.String,
  source_bytes: Millis,
  source_format: Schema.Literals(["jpeg", "png", "webp"]),
  staged_key: Schema.NullOr(Schema.String),
  content_key: Schema.String,
  width: Schema.NullOr(Millis),
  height: Schema.NullOr(Millis),
  bytes: Schema.NullOr(Millis),
  failure: Schema.NullOr(Schema.fromJsonString(Schema.Struct({ code: Schema.String, message: Schema.String }))),
  revision: Millis,
  created_at: Schema.String,
  updated_at: Schema.String
})
type MediaRow = typeof MediaRow.Type
const columns = Object.keys(MediaRow.fields).join(", ")
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(MediaRow))
const decodeStagedKeys = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ staged_key: Schema.String })))
const encodeRow = Schema.encodeEffect(MediaRow)

const toMedia = (row: MediaRow): Media.StoredMedia => ({
  id: row.id,
  companyId: row.company_id,
  connectionId: row.connection_id,
  externalId: row.external_id,
  name: row.name,
  purpose: row.purpose,
  state: row.state,
  jobId: row.job_id,
  sourceSha256: row.source_sha256,
  sourceBytes: row.source_bytes,
  sourceFormat: row.source_format,
  stagedKey: row.staged_key,
  contentKey: row.content_key,
  width: row.width,
  height: row.height,
  bytes: row.bytes,
  failure: row.failure,
  revision: row.revision,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

const toRow = (m: Media.StoredMedia): MediaRow => ({
  id: m.id,
  company_id: m.companyId,
  connection_id: m.connectionId,
  external_id: m.externalId,
  name: m.name,
  purpose: m.purpose,
  state: m.state,
  job_id: m.jobId,
  source_sha256: m.sourceSha256,
  source_bytes: m.sourceBytes,
  source_format: m.sourceFormat,
  staged_key: m.stagedKey,
  content_key: m.contentKey,
  width: m.width,
  height: m.height,
  bytes: m.bytes,
  failure: m.failure,
  revision: m.revision,
  created_at: m.createdAt,
  updated_at: m.updatedAt
})

const Sum = Schema.Struct({ n: Schema.NullOr(Millis) })
const decodeSums = Schema.decodeUnknownEffect(Schema.Array(Sum))

/** MediaRepository over any `SqlClient`. */
export const make: Effect.Effect<
  Context.Service.Shape<typeof MediaRepository.MediaRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const one = (rows: ReadonlyArray<unknown>) =>
    Effect.map(decodeRows(rows), (decoded) => Option.map(Option.fromNullishOr(decoded[0]), toMedia))
  return MediaRepository.MediaRepository.of({
    insert: (media) =>
      Effect.flatMap(encodeRow(toRow(media)), (row) => sql`INSERT INTO media ${sql.insert(row)}`).pipe(
        Effect.asVoid,
        refineErrors,
        span("MediaRepository.insert")
      ),
    update: (media) =>
      Effect.flatMap(encodeRow(toRow(media)), (row) => {
        const { id, company_id, ...rest } = row
        return sql`UPDATE media SET ${sql.update(rest)} WHERE id = ${id} AND company_id = ${company_id}`
      }).pipe(Effect.asVoid, refineErrors, span("MediaRepository.update")),
    get: (companyId, id) =>
      Effect.flatMap(
        sql`SELECT ${sql.literal(columns)} FROM media WHERE company_id = ${companyId} AND id = ${id}`,
        one
      ).pipe(refineErrors, span("MediaRepository.get")),
    byJob: (jobId) =>
      Effect.flatMap(sql`SELECT ${sql.literal(columns)} FROM media WHERE job_id = ${jobId}`, one).pipe(
        refineErrors,
        span("MediaRepository.byJob")
      ),
    completedWithContent: (companyId, contentKey) =>
      Effect.flatMap(
        sql`SELECT ${sql.literal(columns)} FROM media
            WHERE company_id = ${companyId} AND content_key = ${contentKey} AND state = 'completed' ORDER BY id LIMIT 1`,
        one
      ).pipe(refineErrors, span("MediaRepository.completedWithContent")),
    list: (query) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT ${sql.literal(columns)} FROM media
            WHERE company_id = ${query.companyId}
              ${query.cursor === undefined ? sql`` : sql`AND id > ${query.cursor}`}
              ${query.ids === undefined ? sql`` : sql`AND id IN ${inList(sql, query.ids)}`}
            ORDER BY id LIMIT ${query.limit}`
        return (yield* decodeRows(rows)).map(toMedia)
      }).pipe(refineErrors, span("MediaRepository.list")),
    stagedBytes: (companyId, connectionId) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT SUM(source_bytes) AS n FROM media
            WHERE company_id = ${companyId} AND connection_id = ${connectionId} AND staged_key IS NOT NULL`
        const [row] = yield* decodeSums(rows)
        return row?.n ?? 0
      }).pipe(refineErrors, span("MediaRepository.stagedBytes")),
    // Deliberately across companies: the staging area is shared, and this only names files to keep.
    referencedStagedKeys: Effect.gen(function* () {
      const rows = yield* sql`SELECT staged_key FROM media WHERE staged_key IS NOT NULL`
      const keys = yield* decodeStagedKeys(rows)
      return new Set(keys.map((row) => row.staged_key))
    }).pipe(refineErrors, span("MediaRepository.referencedStagedKeys")),
    staged: Effect.gen(function* () {
      const rows = yield* sql`SELECT ${sql.literal(columns)} FROM media WHERE staged_key IS NOT NULL ORDER BY id`
      return (yield* decodeRows(rows)).map(toMedia)
    }).pipe(refineErrors, span("MediaRepository.staged"))
  })
})

/** MediaRepository over the `SqlClient` in context. */
export const layer: Layer.Layer<MediaRepository.MediaRepository, never, SqlClient.SqlClient> = Layer.effect(
  MediaRepository.MediaRepository,
  make
)
