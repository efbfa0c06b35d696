/**
 * Catalog Sync as two layers for a host application: `layer(options)`, every service and port the HTTP
 * API needs over the persistence, media storage and image processor you choose, with the job worker and
 * the upkeep the server runs; and `routes`, the API added to the host's own `HttpRouter`. The server
 * (`@catalog-sync/server`) is built from the same `layer`.
 */
import {
  type Accounts,
  Admin,
  type AuditLog,
  type CatalogRepository,
  CatalogService,
  ChangeFeed,
  type ChangeLog,
  Idempotency,
  type IdempotencyStore,
  Ids,
  type ImageProcessor,
  ImportService,
  type ImportStore,
  InMemoryRateLimiter,
  type InventoryRepository,
  InventoryService,
  JobKinds,
  JobService,
  JobSignal,
  type JobStore,
  JobWorker,
  type Mappings,
  type MediaRepository,
  MediaService,
  type MediaStorage,
  type People,
  PeopleAdmin,
  type RateLimiter,
  type Transactor
} from "@catalog-sync/core"
import { Context, Duration, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { SqlClient } from "effect/sql"
import { ApiLive } from "./ApiLive.js"
import * as NodePasswordHasher from "./NodePasswordHasher.js"
import * as NodeSecretHasher from "./NodeSecretHasher.js"
import { Readiness } from "./System/Readiness.js"
import { IdempotencyPurge, JobRetentionPurge, PanelPurge, StagingSweep } from "./Upkeep.js"

/** The persistence ports `layer` needs: what `layer` of adapter-sqlite and of adapter-pg provide. */
export type PersistencePorts =
  | CatalogRepository.CatalogRepository
  | Mappings.Mappings
  | Transactor.Transactor
  | ChangeLog.ChangeLog
  | Accounts.Accounts
  | IdempotencyStore.IdempotencyStore
  | InventoryRepository.InventoryRepository
  | JobStore.JobStore
  | ImportStore.ImportStore
  | MediaRepository.MediaRepository
  | People.People
  | AuditLog.AuditLog

/** The settings `layer` runs with when left out: the server's defaults (docs/configuration.md). */
export const defaults = {
  /** Job worker fibers (`JOB_WORKERS`); 0 runs none, for an instance that only serves requests. */
  jobWorkers: 1,
  /** A worker's claim on a job (`JOB_LEASE_SECONDS`), renewed every third of it. */
  jobLease: Duration.seconds(30),
  /** How often an idle worker looks for queued jobs (`JOB_POLL_MILLISECONDS`). */
  jobPollMillis: 250,
  /** How long finished import jobs, their records and reports are kept (`JOB_RETENTION_DAYS`). */
  jobRetention: Duration.days(7),
  /** How long a running request holds its Idempotency-Key (`IDEMPOTENCY_LEASE_SECONDS`). */
  idempotencyLease: Duration.seconds(60),
  /** Past it, a media job fails with `processing_timeout` (`MEDIA_PROCESSING_TIMEOUT_SECONDS`). */
  mediaProcessingTimeout: Duration.minutes(2)
} as const

/** The job kinds' layer: the import and media handlers the workers and the job endpoints run. */
export type JobKindsLayer = Layer.Layer<
  JobKinds.JobKinds,
  never,
  ImportService.ImportService | MediaService.MediaService
>

/** Persistence ports the caller leaves out, named in a type error. */
type Complete<P> = [Exclude<PersistencePorts, P>] extends [never]
  ? unknown
  : { readonly "missing persistence ports": Exclude<PersistencePorts, P> }

/** What `layer` is given. Every layer after `persistence` may need what `persistence` provides. */
export interface Options<P, EP, RP, EM, RM, EI, RI, ER, RR, EA, RA> {
  /** Every persistence port, e.g. adapter-sqlite's `layer({ filename })` (its `SqlClient` comes along). */
  readonly persistence: Layer.Layer<P, EP, RP> & Complete<P>
  /** Where processed images are kept and uploads wait: `MediaStorage` and `MediaStaging`. */
  readonly media: Layer.Layer<MediaStorage.MediaStorage | MediaStorage.MediaStaging, EM, RM>
  /** The image processor, e.g. `SharpImageProcessor.layer` of adapter-image-sharp. */
  readonly images: Layer.Layer<ImageProcessor.ImageProcessor, EI, RI>
  /** Default: core's `InMemoryRateLimiter` (one process); adapter-sql's `SqlRateLimiter` for several. */
  readonly rateLimiter?: Layer.Layer<RateLimiter.RateLimiter, ER, RR> | undefined
  /** What `GET /ready` checks. Default: `SELECT 1` on the `SqlClient` that `persistence` provides (then required). */
  readonly readiness?: Layer.Layer<Readiness, EA, RA> | undefined
  /** Job worker fibers; default `defaults.jobWorkers`. */
  readonly jobWorkers?: number | undefined
  /** A worker's claim on a job; default `defaults.jobLease`. */
  readonly jobLease?: Duration.Duration | undefined
  /** How often an idle worker looks for queued jobs; default `defaults.jobPollMillis`. */
  readonly jobPollMillis?: number | undefined
  /** How long finished import jobs are kept; default `defaults.jobRetention`. */
  readonly jobRetention?: Duration.Duration | undefined
  /** How long a running request holds its Idempotency-Key; default `defaults.idempotencyLease`. */
  readonly idempotencyLease?: Duration.Duration | undefined
  /** How long a media job may take; default `defaults.mediaProcessingTimeout`. */
  readonly mediaProcessingTimeout?: Duration.Duration | undefined
  /** How long a panel session lives (idle and in all); default `PeopleAdmin.SessionLimits`'s. */
  readonly sessionLimits?: PeopleAdmin.SessionLimits | undefined
  /** Wraps the job kinds' layer (the server measures and traces the handlers through it). */
  readonly jobKinds?: ((defaults: JobKindsLayer) => JobKindsLayer) | undefined
}

/** The services `layer` provides besides the persistence ports, media ports and image processor it is given. */
export type Services =
  | CatalogService.CatalogService
  | ChangeFeed.ChangeFeed
  | InventoryService.InventoryService
  | ImportService.ImportService
  | JobService.JobService
  | JobKinds.JobKinds
  | MediaService.MediaService
  | Admin.Admin
  | PeopleAdmin.PeopleAdmin
  | RateLimiter.RateLimiter
  | Readiness
  | Ids.Ids

/** What `layer` provides: its services, and the persistence, media and images it is given. */
export type Provided<P> =
  Services | P | MediaStorage.MediaStorage | MediaStorage.MediaStaging | ImageProcessor.ImageProcessor

/** `GET /ready` without a readiness of the caller's: the database answers `SELECT 1`. */
const DefaultReadiness = Layer.effect(
  Readiness,
  Effect.map(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`SELECT 1`))
)

/**
 * Every service and port the HTTP API (`ApiLive`, `routes`) needs, and `Admin` for the host's own setup of
 * companies, connections and keys: the core's use cases over the given persistence, media storage and
 * image processor, a rate limiter, the readiness probe, job workers that run imports and image
 * processing, and the upkeep the server runs (idempotency and import purges, the staging sweep), all in
 * fibers of the layer's scope. Settings left out take the server's defaults (`defaults`).
 *
 * @example
 * import { CatalogSync } from "@catalog-sync/adapter-http"
 * import { SharpImageProcessor } from "@catalog-sync/adapter-image-sharp"
 * import { layer as sqlite } from "@catalog-sync/adapter-sqlite"
 * import { FsMediaStorage } from "@catalog-sync/adapter-storage-fs"
 * import { Layer } from "effect"
 *
 * export const Services = CatalogSync.layer({
 *   persistence: sqlite({ filename: "data/catalog.db" }),
 *   media: Layer.merge(FsMediaStorage.layer("data/media"), FsMediaStorage.stagingLayer("data/staging")),
 *   images: SharpImageProcessor.layer
 * })
 */
export const layer = <
  P,
  EP = never,
  RP = never,
  EM = never,
  RM = never,
  EI = never,
  RI = never,
  ER = never,
  RR = never,
  EA = never,
  // Without a `readiness` of the caller's, the default one's `SqlClient`: `persistence` must provide it.
  RA = SqlClient.SqlClient
>(
  options: Options<P, EP, RP, EM, RM, EI, RI, ER, RR, EA, RA>
): Layer.Layer<Provided<P>, EP | EM | EI | ER | EA, RP | RM | RI | Exclude<RR | RA, P>> => {
  const jobKinds = options.jobKinds === undefined ? JobKinds.layer : options.jobKinds(JobKinds.layer)
  const mediaService = MediaService.MediaService.Default.pipe(
    Layer.provide(
      Layer.succeed(MediaService.ProcessingTimeout, options.mediaProcessingTimeout ?? defaults.mediaProcessingTimeout)
    )
  )
  const workers = Layer.effectDiscard(
    JobWorker.runWorkers({
      workers: options.jobWorkers ?? defaults.jobWorkers,
      leaseMillis: Duration.toMillis(options.jobLease ?? defaults.jobLease),
      pollMillis: options.jobPollMillis ?? defaults.jobPollMillis
    })
  )
  // Imports and media register their job handlers for the workers and the job endpoints.
  const jobs = Layer.mergeAll(JobService.JobService.Default, workers, StagingSweep).pipe(
    Layer.provideMerge(jobKinds),
    Layer.provideMerge(ImportService.ImportService.Default),
    Layer.provideMerge(mediaService),
    Layer.provideMerge(CatalogService.CatalogService.Default)
  )
  const services = Layer.mergeAll(
    CatalogService.CatalogService.Default,
    ChangeFeed.ChangeFeed.Default,
    InventoryService.InventoryService.Default,
    Admin.Admin.Default,
    PanelPurge.pipe(Layer.provideMerge(PeopleAdmin.PeopleAdmin.Default)).pipe(
      Layer.provide(NodePasswordHasher.layer),
      Layer.provide(
        options.sessionLimits === undefined
          ? Layer.empty
          : Layer.succeed(PeopleAdmin.SessionLimits, options.sessionLimits)
      )
    ),
    jobs,
    options.rateLimiter ?? InMemoryRateLimiter.layer,
    options.readiness ?? DefaultReadiness,
    IdempotencyPurge,
    JobRetentionPurge(options.jobRetention ?? defaults.jobRetention),
    NodeSecretHasher.layer
  ).pipe(
    // One signal for the HTTP handlers that queue jobs and the workers they wake.
    Layer.provideMerge(JobSignal.layer),
    Layer.provideMerge(Layer.succeed(Idempotency.ClaimLease, options.idempotencyLease ?? defaults.idempotencyLease)),
    Layer.provideMerge(Layer.mergeAll(options.media, options.images)),
    Layer.provideMerge(Ids.IdsLive)
  )
  // The requirements are inferred as nested Excludes that TypeScript does not reduce for type parameters.
  return services.pipe(
    Layer.provideMerge(options.persistence as Layer.Layer<P | PersistencePorts, EP, RP>)
  ) as Layer.Layer<Provided<P>, EP | EM | EI | ER | EA, RP | RM | RI | Exclude<RR | RA, P>>
}

/**
 * The API's own router. `HttpRouter.toHttpEffect(ApiLive)` would not do inside the host's router layer: it
 * builds `HttpRouter.layer`, which the build has already made for the host, and gets the host's router back.
 */
const ApiRouter = Layer.effect(HttpRouter.HttpRouter)(HttpRouter.make)

/**
 * The API as one app, built on a router of its own, for a host that adds it to its router itself. It answers
 * the API's paths as they are (`/api/v1/…`, `/health`, `/ready`) and `route_not_found` for any other.
 */
export const app = Effect.map(Layer.build(Layer.provideMerge(ApiLive, ApiRouter)), (context) =>
  Context.get(context, HttpRouter.HttpRouter).asHttpEffect()
)

/**
 * The API in the host application's `HttpRouter`, next to the host's own routes: every path under `/api`
 * (its endpoints, the OpenAPI document, and `route_not_found` in the API's error body for the rest), and
 * `GET /health` and `GET /ready`. The API runs as an app of its own (`app`), so its envelope (request ids,
 * the spec's error bodies) stays on these paths; every other path, and its 404, is the host's. Needs
 * `layer`'s services and the platform's (the Node server's layer provides them).
 */
export const routes = Layer.unwrap(
  Effect.map(app, (api) =>
    HttpRouter.addAll([
      HttpRouter.route("*", "/api/*", api),
      HttpRouter.route("GET", "/health", api),
      HttpRouter.route("GET", "/ready", api)
    ])
  )
)
