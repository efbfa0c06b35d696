import { Context, Effect, Layer } from "effect"
import { makeArchive } from "../internal/Catalog/Archive.js"
import { makeQueries } from "../internal/Catalog/Queries.js"
import { makeUpsert } from "../internal/Catalog/Upsert.js"

export type { ListParams, Page, PageJson } from "../internal/Catalog/Queries.js"
export type { Outcome, WriteResult } from "../internal/Catalog/WriteResult.js"

/**
 * The catalog use cases: upsert (`Upsert`), get and list (`Queries`) and archive (`Archive`), written once
 * for every resource over the resource definitions. Every method acts for the CurrentPrincipal and stays
 * inside its company.
 */
export class CatalogService extends Context.Service<CatalogService>()("@catalog-sync/core/CatalogService", {
  make: Effect.gen(function* () {
    const upserts = yield* makeUpsert
    const queries = yield* makeQueries
    const archives = yield* makeArchive
    return {
      preauthorizeUpsert: upserts.preauthorizeUpsert,
      authorizeUpsert: upserts.authorizeUpsert,
      authorizeArchive: archives.authorizeArchive,
      upsert: upserts.upsert,
      upsertCommand: upserts.upsertCommand,
      batchWriter: upserts.batchWriter,
      get: queries.get,
      getJson: queries.getJson,
      list: queries.list,
      listJson: queries.listJson,
      archive: archives.archive,
      archiveCommand: archives.archiveCommand
    } as const
  })
}) {
  /** The service over its ports (the layer Effect 3's `Effect.Service` generated). */
  static readonly Default = Layer.effect(this, this.make)
}
