import { Context, Effect, type Option } from "effect"
import type { CompanyId, ConnectionId, RecordId } from "../Shared/Ids.js"
import type { MappingConflict, PersistenceError } from "../Shared/Errors.js"
import type { ReferenceTarget } from "../Resources/Resource.js"

/** The namespace a mapping lives in: external_id is unique within company + connection + resource. */
export interface MappingScope {
  readonly companyId: CompanyId
  readonly connectionId: ConnectionId
  readonly resource: ReferenceTarget
}

export interface Mapping extends MappingScope {
  readonly externalId: string
  readonly recordId: RecordId
  readonly createdAt: string
}

/** External ids to resolve in one scope, one of `findAcross`'s lookups. */
export interface MappingLookup {
  readonly scope: MappingScope
  readonly externalIds: ReadonlyArray<string>
}

/**
 * external_id -> record mappings of a connection. A mapping never moves: there is no update. A record
 * has at most one mapping per connection.
 */
export class Mappings extends Context.Service<
  Mappings,
  {
    readonly find: (scope: MappingScope, externalId: string) => Effect.Effect<Option.Option<RecordId>, PersistenceError>
    /** Resolves many external ids in one round trip; unknown ones are absent from the result. */
    readonly findMany: (
      scope: MappingScope,
      externalIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, RecordId>, PersistenceError>
    /**
     * `findMany` of several scopes, a result per lookup in their order: a write reads its own external id
     * and its references' with it. An adapter that can answers in one round trip (one statement instead of
     * one per resource); `findAcrossOneByOne` makes it of `findMany` for one that cannot.
     */
    readonly findAcross: (
      lookups: ReadonlyArray<MappingLookup>
    ) => Effect.Effect<ReadonlyArray<ReadonlyMap<string, RecordId>>, PersistenceError>
    /** The connection's external ids of the given records, in one round trip. */
    readonly externalIdsOf: (
      scope: MappingScope,
      recordIds: ReadonlyArray<RecordId>
    ) => Effect.Effect<ReadonlyMap<RecordId, string>, PersistenceError>
    /** Fails with MappingConflict when the external id or the record is already mapped in the scope. */
    readonly insert: (mapping: Mapping) => Effect.Effect<void, MappingConflict | PersistenceError>
    /**
     * Inserts many mappings in as few statements as the engine allows. Fails with MappingConflict when any
     * of them conflicts, possibly after inserting the others: the caller rolls its transaction back.
     */
    readonly insertMany: (mappings: ReadonlyArray<Mapping>) => Effect.Effect<void, MappingConflict | PersistenceError>
  }
>()("@catalog-sync/core/Mappings") {}

/** `findAcross` made of `findMany`, one lookup after another: for an adapter that cannot do better. */
export const findAcrossOneByOne =
  <E>(
    findMany: (
      scope: MappingScope,
      externalIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, RecordId>, E>
  ) =>
  (lookups: ReadonlyArray<MappingLookup>): Effect.Effect<ReadonlyArray<ReadonlyMap<string, RecordId>>, E> =>
    Effect.forEach(lookups, (lookup) => findMany(lookup.scope, lookup.externalIds))
