/**
 * The body properties as a vitest suite over a layer of the persistence ports (`runBodyProperties`): the
 * part of the kit that needs vitest, kept apart so that the properties themselves load without it.
 */
import { describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CatalogService } from "../Catalog/CatalogService.js"
import { resourceNames } from "../Resources/Resource.js"
import { IdsLive } from "../Shared/Ids.js"
import { type BodyPropertyOptions, checkBodies } from "./BodyProperties.js"
import type { PersistencePorts } from "./PersistenceFixtures.js"

/**
 * Registers the body properties of every resource as vitest tests over `ports` (built once for the
 * suite): `runBodyProperties("my adapter", MyPorts, { seed: 42 })`.
 */
export const runBodyProperties = (
  name: string,
  ports: Layer.Layer<PersistencePorts, unknown>,
  options: BodyPropertyOptions = {}
) =>
  layer(CatalogService.Default.pipe(Layer.provideMerge(ports), Layer.provideMerge(IdsLive)), { timeout: 600_000 })(
    `upsert body properties: ${name}`,
    (it) => {
      describe("valid bodies are accepted; invalid ones are refused with their labelled code and path", () => {
        for (const resource of options.resources ?? resourceNames)
          it.effect(
            `${resource}: ${options.validRuns ?? 1000} valid and ${options.invalidRuns ?? 300} invalid bodies`,
            () => Effect.asVoid(checkBodies(resource, options)),
            600_000
          )
      })
    }
  )
