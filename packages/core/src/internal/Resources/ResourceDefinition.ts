import type { Effect, Schema } from "effect"
import type { CompanySettings } from "../../Auth/Company.js"
import type { RecordId } from "../../Shared/Ids.js"
import type { Issue, PersistenceError, RuleReason } from "../../Shared/Errors.js"
import type { ReferenceTarget, ResourceName } from "../../Resources/Resource.js"
import type { RecordIndex, StoredRecord } from "../../Catalog/StoredRecord.js"

export type Document = Readonly<Record<string, unknown>>

/** Where References sit in a body: key path segments, `*` for every array element. */
export interface ReferenceSlot {
  readonly path: ReadonlyArray<string>
  readonly target: ReferenceTarget
}

/** A rule broken by a merged document. */
export interface Violation {
  readonly reason: RuleReason
  readonly issue: Issue
}

/**
 * What rules may look up while validating a merged document. Its reads may also fail with `E`: what the
 * ports the write goes through fail with besides (an import batch's write-behind may give up on the batch).
 */
export interface RuleContext<E = never> {
  readonly isCreate: boolean
  readonly recordId: RecordId
  /** The stored document before this write; undefined on create. */
  readonly stored: Document | undefined
  readonly company: CompanySettings
  readonly getMany: (
    resource: ResourceName,
    ids: ReadonlyArray<RecordId>
  ) => Effect.Effect<ReadonlyArray<StoredRecord>, PersistenceError | E>
  readonly ancestors: (categoryId: RecordId) => Effect.Effect<ReadonlyArray<RecordId>, PersistenceError | E>
  /** Records of `resource` under any of `parentIds` (groups of a type, options of groups). */
  readonly children: (
    resource: ResourceName,
    parentIds: ReadonlyArray<RecordId>
  ) => Effect.Effect<ReadonlyArray<StoredRecord>, PersistenceError | E>
  /** Live bundles listing this product as a component; serialises bundle-integrity checks of the company. */
  readonly bundlesContaining: (productId: RecordId) => Effect.Effect<ReadonlyArray<RecordId>, PersistenceError | E>
  /** Serialises the company's pricing-level checks until the transaction ends. */
  readonly lockPricing: Effect.Effect<void, PersistenceError | E>
}

/** Merges one sent key into the stored value (the default replaces it). */
export type KeyMerger = (stored: unknown, sent: unknown, context: { readonly nextId: () => string }) => unknown

/**
 * Everything that makes one catalog resource different from another. The upsert, read and list use
 * cases are written once over this description.
 */
export interface ResourceDefinition<
  BodySchema extends Schema.Codec<unknown, unknown> = Schema.Codec<unknown, unknown>,
  RecordSchema extends Schema.Codec<unknown, unknown> = Schema.Codec<unknown, unknown>
> {
  readonly name: ResourceName
  /** Singular, for messages. */
  readonly label: string
  /** The upsert body (spec 2.4-2.10), strict. */
  readonly body: BodySchema
  /** The record as returned. */
  readonly record: RecordSchema
  /** Top-level body keys that are prices (need prices:write / prices:read). */
  readonly priceKeys: ReadonlyArray<string>
  /** Top-level body keys that are costs (need costs:write / costs:read). */
  readonly costKeys: ReadonlyArray<string>
  /** Keys a translation entry may carry for this resource. */
  readonly translatable: ReadonlyArray<"name" | "description">
  readonly references: ReadonlyArray<ReferenceSlot>
  /** Keys that must be present once a record is created. */
  readonly requiredOnCreate: ReadonlyArray<string>
  /** The document of a record before its first write. */
  readonly defaults: Document
  readonly mergers: Readonly<Record<string, KeyMerger>>
  /** Rules on the sent body itself, checked against the stored document before merging. */
  readonly checkBody: (body: Document, stored: Document | undefined) => ReadonlyArray<Violation>
  /** Brings decimal strings and derived values into their stored form. */
  readonly normalize: (document: Document) => Document
  readonly validate: <E>(
    document: Document,
    context: RuleContext<E>
  ) => Effect.Effect<ReadonlyArray<Violation>, PersistenceError | E>
  readonly index: (document: Document) => RecordIndex
}
