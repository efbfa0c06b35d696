import { layer } from "@effect/vitest"
import type { Layer } from "effect"
import { catalogRepositoryCases } from "./CatalogRepositoryConformance.js"
import { changeLogCases } from "./ChangeLogConformance.js"
import { mappingsCases } from "./MappingsConformance.js"
import type { PersistencePorts } from "./PersistenceFixtures.js"
import { transactorCases } from "./TransactorConformance.js"

export type { PersistencePorts } from "./PersistenceFixtures.js"

/**
 * The contract every implementation of the persistence ports must meet, run by each adapter against its
 * own layer (in memory, SQLite, PostgreSQL). Each test works in fresh company ids, so one layer serves
 * the whole suite.
 */
export const runConformance = (name: string, ports: Layer.Layer<PersistencePorts, unknown>) =>
  layer(ports, { timeout: 60_000 })(`persistence ports conformance: ${name}`, (it) => {
    catalogRepositoryCases(it)
    mappingsCases(it)
    changeLogCases(it)
    transactorCases(it)
  })
