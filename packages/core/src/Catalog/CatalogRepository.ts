import { Context, type Effect, type Option } from "effect"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import type { PersistenceError, RevisionConflict } from "../Shared/Errors.js"
import type { ReferenceTarget, ResourceName } from "../Resources/Resource.js"
import type { RecordIndex, StoredRecord } from "./StoredRecord.js"

/** A page request. Records come ordered by id; `cursor` is the last id of the previous page. */
export interface ListQuery {
  readonly limit: number
  readonly cursor?: RecordId | undefined
  /** Only the record mapped to this external_id by this connection. */
  readonly externalId?: { readonly connectionId: ConnectionId; readonly value: string } | undefined
  readonly includeArchived?: boolean | undefined
  readonly categoryId?: RecordId | undefined
  readonly collectionId?: RecordId | undefined
  readonly brandId?: RecordId | undefined
  readonly active?: boolean | undefined
}

/**
 * Persistence of catalog records. Every method is scoped by company: a record of another company is
 * never returned, counted or changed.
 */
export class CatalogRepository extends Context.Service<
  CatalogRepository,
  {
    readonly get: (
      companyId: CompanyId,
      resource: ResourceName,
      id: RecordId
    ) => Effect.Effect<Option.Option<StoredRecord>, PersistenceError>
    /** A record with the external id its mapping of `connectionId` gives it (null if none), in one round trip. */
    readonly getMapped: (
      companyId: CompanyId,
      resource: ResourceName,
      id: RecordId,
      connectionId: ConnectionId
    ) => Effect.Effect<
      Option.Option<{ readonly record: StoredRecord; readonly externalId: string | null }>,
      PersistenceError
    >
    /** The records among `ids` that exist (archived included), in one round trip. */
    readonly getMany: (
      companyId: CompanyId,
      resource: ResourceName,
      ids: ReadonlyArray<RecordId>
    ) => Effect.Effect<ReadonlyArray<StoredRecord>, PersistenceError>
    /** Which of `ids` exist as `target` in the company, in one round trip. */
    readonly existing: (
      companyId: CompanyId,
      target: ReferenceTarget,
      ids: ReadonlyArray<RecordId>
    ) => Effect.Effect<ReadonlySet<RecordId>, PersistenceError>
    readonly insert: (record: StoredRecord) => Effect.Effect<void, PersistenceError>
    /** Inserts new records (an import batch's creates) in as few statements as the engine allows. */
    readonly insertMany: (records: ReadonlyArray<StoredRecord>) => Effect.Effect<void, PersistenceError>
    /**
     * Replaces the record if its stored revision is still `expectedRevision` (compare-and-set), so that
     * two writers racing on one record never both win. `previous` is the index of the record as stored at
     * `expectedRevision`, when the caller read it: what is derived from the index and did not change (the
     * SQL adapters' link rows) is then left as it is.
     */
    readonly update: (
      record: StoredRecord,
      expectedRevision: number,
      previous?: RecordIndex
    ) => Effect.Effect<void, RevisionConflict | PersistenceError>
    /** Up to `query.limit` records after the cursor, in id order. */
    readonly list: (
      companyId: CompanyId,
      resource: ResourceName,
      query: ListQuery
    ) => Effect.Effect<ReadonlyArray<StoredRecord>, PersistenceError>
    /** `list`, each record with the external id its mapping of `connectionId` gives it (null if none), in one round trip. */
    readonly listMapped: (
      companyId: CompanyId,
      resource: ResourceName,
      query: ListQuery,
      connectionId: ConnectionId
    ) => Effect.Effect<
      ReadonlyArray<{ readonly record: StoredRecord; readonly externalId: string | null }>,
      PersistenceError
    >
    /** Records of `resource` whose parent (index.parentId) is one of `parentIds`, archived ones included, in id order. */
    readonly children: (
      companyId: CompanyId,
      resource: ResourceName,
      parentIds: ReadonlyArray<RecordId>
    ) => Effect.Effect<ReadonlyArray<StoredRecord>, PersistenceError>
    /**
     * The live (not archived) bundles that list `productId` among their components, in id order. On an
     * engine where concurrent transactions do not see each other's writes, it first serialises the
     * company's bundle-integrity checks, so a bundle write and an archive of its component cannot both pass.
     */
    readonly bundlesContaining: (
      companyId: CompanyId,
      productId: RecordId
    ) => Effect.Effect<ReadonlyArray<RecordId>, PersistenceError>
    /**
     * Serialises the company's pricing-level checks (a type's pricing_scope against its groups' and
     * options' rules) until the transaction ends; a no-op where writers are serial already.
     */
    readonly lockPricing: (companyId: CompanyId) => Effect.Effect<void, PersistenceError>
    /** The parent chain of a category, nearest first; stops after `maxDepth` steps. */
    readonly ancestors: (
      companyId: CompanyId,
      categoryId: RecordId,
      maxDepth: number
    ) => Effect.Effect<ReadonlyArray<RecordId>, PersistenceError>
  }
>()("@catalog-sync/core/CatalogRepository") {}
