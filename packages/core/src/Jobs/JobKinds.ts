import { Context, Effect, Layer } from "effect"
import { ImportService } from "../Imports/ImportService.js"
import { MediaService } from "../Media/MediaService.js"
import type { JobKind } from "./Job.js"
import type { JobKindHandler } from "../internal/Jobs/JobKindHandler.js"

export type { JobKindHandler, RetryError } from "../internal/Jobs/JobKindHandler.js"

/** The handler of every job kind. */
export class JobKinds extends Context.Service<JobKinds, { readonly [K in JobKind]: JobKindHandler }>()(
  "@catalog-sync/core/JobKinds"
) {}

/** The kinds this implementation runs: imports and media register their handlers. */
export const layer: Layer.Layer<JobKinds, never, ImportService | MediaService> = Layer.effect(
  JobKinds,
  Effect.all({
    import: Effect.map(ImportService, (imports) => imports.jobKind),
    media: Effect.map(MediaService, (media) => media.jobKind)
  })
)
