/** The layers the core's catalog use cases need, in memory and on SQLite. */
import { layer as SqlitePorts } from "@catalog-sync/adapter-sqlite"
import { CatalogService, Ids } from "@catalog-sync/core"
import { InMemory } from "@catalog-sync/core/memory"
import { Layer } from "effect"

/** CatalogService over the persistence ports in memory: nothing to set up, nothing kept. */
export const InMemoryCatalog = CatalogService.CatalogService.Default.pipe(
  Layer.provide(InMemory.layer),
  Layer.provide(Ids.IdsLive)
)

/** CatalogService over a SQLite file, migrated while the layer builds (and closed with it). */
export const SqliteCatalog = (filename: string) =>
  CatalogService.CatalogService.Default.pipe(Layer.provide(SqlitePorts({ filename })), Layer.provide(Ids.IdsLive))
