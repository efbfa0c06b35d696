import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../Shared/Errors.js"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import type { StoredMedia } from "./Media.js"

/** The filters and page of a media list. */
export interface MediaListQuery {
  readonly companyId: CompanyId
  /** Media with an id greater than this one. */
  readonly cursor?: string | undefined
  readonly ids?: ReadonlyArray<RecordId> | undefined
  readonly limit: number
}

/** Media items of a company. */
export class MediaRepository extends Context.Service<
  MediaRepository,
  {
    readonly insert: (media: StoredMedia) => Effect.Effect<void, PersistenceError>
    readonly update: (media: StoredMedia) => Effect.Effect<void, PersistenceError>
    readonly get: (companyId: CompanyId, id: RecordId) => Effect.Effect<Option.Option<StoredMedia>, PersistenceError>
    readonly byJob: (jobId: string) => Effect.Effect<Option.Option<StoredMedia>, PersistenceError>
    /** A completed item of the company with this content key (the processed file exists). */
    readonly completedWithContent: (
      companyId: CompanyId,
      contentKey: string
    ) => Effect.Effect<Option.Option<StoredMedia>, PersistenceError>
    /** A page in id order. */
    readonly list: (query: MediaListQuery) => Effect.Effect<ReadonlyArray<StoredMedia>, PersistenceError>
    /** Bytes of the connection's uploads still staged (not processed yet). */
    readonly stagedBytes: (companyId: CompanyId, connectionId: ConnectionId) => Effect.Effect<number, PersistenceError>
    /**
     * The staged keys that items not processed yet still reference, across every company: the staging
     * area is shared, and only this tells which of its files are a crash's leftovers.
     */
    readonly referencedStagedKeys: Effect.Effect<ReadonlySet<string>, PersistenceError>
    /**
     * The items whose upload is still staged, across every company (housekeeping: the images of failed
     * jobs are released after a while).
     */
    readonly staged: Effect.Effect<ReadonlyArray<StoredMedia>, PersistenceError>
  }
>()("@catalog-sync/core/MediaRepository") {}
