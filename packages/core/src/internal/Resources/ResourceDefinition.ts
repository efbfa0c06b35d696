import type { Effect, Schema } from "effect"
import type { CompanySettings } from "../../Auth/Company.js"
import type { RecordId } from "../../Shared/Ids.js"
import type { Issue, PersistenceError, RuleReason } from "../../Shared/Errors.js"
import type { ReferenceTarget, ResourceName } from "../../Resources/Resource.js"
import type { DocumentOf } from "./Documents.js"
import type { RecordIndex, StoredRecord } from "../../Catalog/StoredRecord.js"
import type { JsonObject } from "../json.js"

/**
 * A record's document, or a body, as the engine handles it: a JSON object whose keys it does not know.
 * Each resource's own rules read it typed (`ResourceSpec`).
 */
export type Document = JsonObject

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
 * What rules may look up while validating a merged document of type `Stored`. Its reads may also fail with
 * `E`: what the ports the write goes through fail with besides (an import batch's write-behind may give up
 * on the batch). Records it reads carry their resource's document type.
 */
export interface RuleContext<Stored extends Document = Document, E = never> {
  readonly isCreate: boolean
  readonly recordId: RecordId
  /** The stored document before this write; undefined on create. */
  readonly stored: Stored | undefined
  readonly company: CompanySettings
  readonly getMany: <Name extends ResourceName>(
    resource: Name,
    ids: ReadonlyArray<RecordId>
  ) => Effect.Effect<ReadonlyArray<StoredRecord<DocumentOf<Name>>>, PersistenceError | E>
  readonly ancestors: (categoryId: RecordId) => Effect.Effect<ReadonlyArray<RecordId>, PersistenceError | E>
  /** Records of `resource` under any of `parentIds` (groups of a type, options of groups). */
  readonly children: <Name extends ResourceName>(
    resource: Name,
    parentIds: ReadonlyArray<RecordId>
  ) => Effect.Effect<ReadonlyArray<StoredRecord<DocumentOf<Name>>>, PersistenceError | E>
  /** Live bundles listing this product as a component; serialises bundle-integrity checks of the company. */
  readonly bundlesContaining: (productId: RecordId) => Effect.Effect<ReadonlyArray<RecordId>, PersistenceError | E>
  /** Serialises the company's pricing-level checks until the transaction ends. */
  readonly lockPricing: Effect.Effect<void, PersistenceError | E>
}

/** Merges one sent key into the stored value, as the engine calls it (the default replaces it). */
export type KeyMerger = (stored: unknown, sent: unknown, context: MergeContext) => unknown

export interface MergeContext {
  readonly nextId: () => string
}

/**
 * A document before its first write: each key's default, `null` where a create must send it
 * (`requiredOnCreate`).
 */
export type Defaults<Stored extends Document> = { readonly [Key in keyof Stored]: Stored[Key] | null }

/**
 * A resource's own mergers, each typed by its key: the stored value and the value sent, as the body's
 * schema decoded it with its References resolved to record ids.
 */
export type Mergers<Body, Stored extends Document> = {
  readonly [Key in keyof Stored & keyof Body]?: (
    stored: Stored[Key],
    sent: Exclude<Body[Key], undefined>,
    context: MergeContext
  ) => Stored[Key]
}

/** Rules on a decoded body itself, checked against the stored document before merging. */
export type BodyCheck<Body, Stored extends Document> = (
  body: Body,
  stored: Stored | undefined
) => ReadonlyArray<Violation>

/** Rules on a merged document, which may look records up. */
export type DocumentRule<Stored extends Document> = <E>(
  document: Stored,
  context: RuleContext<Stored, E>
) => Effect.Effect<ReadonlyArray<Violation>, PersistenceError | E>

/**
 * What a resource module writes: its schemas and keys, and its rules typed by its decoded body (`Body`, of
 * `BodySchema`) and its stored document (`Stored`: the record less identity, revision and timestamps).
 */
export interface ResourceSpec<BodySchema extends Schema.Top, RecordSchema extends Schema.Top, Stored extends Document> {
  readonly name: ResourceName
  /** Singular, for messages. */
  readonly label: string
  /** The upsert body (spec 2.4-2.10), strict. */
  readonly body: BodySchema
  /** The record as returned. */
  readonly record: RecordSchema
  /** Top-level body keys that are prices (need prices:write / prices:read). */
  readonly priceKeys: ReadonlyArray<keyof Stored & string>
  /** Top-level body keys that are costs (need costs:write / costs:read). */
  readonly costKeys: ReadonlyArray<keyof Stored & string>
  /** Keys a translation entry may carry for this resource. */
  readonly translatable: ReadonlyArray<"name" | "description">
  readonly references: ReadonlyArray<ReferenceSlot>
  /** Keys that must be present once a record is created. */
  readonly requiredOnCreate: ReadonlyArray<keyof Stored & string>
  /** The document of a record before its first write. */
  readonly defaults: Defaults<Stored>
  readonly mergers: Mergers<BodySchema["Type"], Stored>
  readonly checkBody: BodyCheck<BodySchema["Type"], Stored>
  /** Brings decimal strings and derived values into their stored form. */
  readonly normalize: (document: Stored) => Stored
  readonly validate: DocumentRule<Stored>
  readonly index: (document: Stored) => RecordIndex
}

/**
 * Everything that makes one catalog resource different from another, as the upsert, read and list use
 * cases (written once for all resources) see it: its rules take any document (`defineResource`).
 */
export interface ResourceDefinition<
  BodySchema extends Schema.Top = Schema.Top,
  RecordSchema extends Schema.Top = Schema.Top
> {
  readonly name: ResourceName
  readonly label: string
  readonly body: BodySchema
  readonly record: RecordSchema
  readonly priceKeys: ReadonlyArray<string>
  readonly costKeys: ReadonlyArray<string>
  readonly translatable: ReadonlyArray<"name" | "description">
  readonly references: ReadonlyArray<ReferenceSlot>
  readonly requiredOnCreate: ReadonlyArray<string>
  readonly defaults: Document
  readonly mergers: ReadonlyMap<string, KeyMerger>
  readonly checkBody: (body: Document, stored: Document | undefined) => ReadonlyArray<Violation>
  readonly normalize: (document: Document) => Document
  readonly validate: <E>(
    document: Document,
    context: RuleContext<Document, E>
  ) => Effect.Effect<ReadonlyArray<Violation>, PersistenceError | E>
  readonly index: (document: Document) => RecordIndex
}

/** One typed merger as the engine calls it. */
const eraseMerger =
  <Value, Sent>(merge: (stored: Value, sent: Sent, context: MergeContext) => Value): KeyMerger =>
  (stored, sent, context) =>
    merge(stored as Value, sent as Sent, context)

/**
 * A resource's definition from its spec: the one place its types meet the engine's. Every document the
 * engine hands a resource's rules is one of that resource (its stored record's, or its defaults merged with
 * a body its own schema decoded), so each rule receives its own type (`own`).
 */
export const defineResource = <BodySchema extends Schema.Top, RecordSchema extends Schema.Top, Stored extends Document>(
  spec: ResourceSpec<BodySchema, RecordSchema, Stored>
): ResourceDefinition<BodySchema, RecordSchema> => {
  type Body = BodySchema["Type"]
  const own = (document: Document) => document as Stored
  const ownIfAny = (document: Document | undefined) => (document === undefined ? undefined : own(document))
  const mergers = new Map<string, KeyMerger>()
  for (const key of Object.keys(spec.mergers) as Array<keyof Stored & keyof Body & string>) {
    const merge = spec.mergers[key]
    if (merge !== undefined) mergers.set(key, eraseMerger(merge))
  }
  return {
    ...spec,
    mergers,
    checkBody: (body, stored) => spec.checkBody(body, ownIfAny(stored)),
    normalize: (document) => spec.normalize(own(document)),
    validate: (document, context) => spec.validate(own(document), { ...context, stored: ownIfAny(context.stored) }),
    index: (document) => spec.index(own(document))
  }
}
