/**
 * What an embedding application and an adapter author use: the use cases and admin services, the
 * resources' schemas and records, errors with their codes, ids and the caller, and the ports with the
 * types they store. A module no embedder or adapter author needs lives under `internal/` and is not
 * exported; the project's own adapters reach the few they share through `./adapter-support`.
 *
 * @packageDocumentation
 */

// The use cases, their maintenance tasks, and the admin services.
/**
 * The catalog use cases: upsert, get, list and archive a record of any catalog resource, as the API's catalog routes
 * do.
 */
export * as CatalogService from "./Catalog/CatalogService.js"
/** The change feed (`GET /changes`): what changed after a cursor, as the caller's connection sees it. */
export * as ChangeFeed from "./Changes/ChangeFeed.js"
/** Bulk imports (`POST /imports`): a batch of upserts queued as a job, and its records and report. */
export * as ImportService from "./Imports/ImportService.js"
/** Stock: `set`, `in` and `out` writes on a product's stock card, and the cards a connection may read. */
export * as InventoryService from "./Inventory/InventoryService.js"
/** Media: uploads staged for the image pipeline, and the media records the API lists and returns. */
export * as MediaService from "./Media/MediaService.js"
/** Upkeep a host schedules: deletes staged uploads abandoned past their grace period. */
export * as MediaStagingSweep from "./Media/MediaStagingSweep.js"
/** Jobs as a connection sees them: list, read (with an import's report) and retry. */
export * as JobService from "./Jobs/JobService.js"
/** The handlers of the job kinds this implementation runs (imports, media), as the workers need them. */
export * as JobKinds from "./Jobs/JobKinds.js"
/** The job workers: fibers that claim queued jobs and run their kind's handler; a host starts them in a scope. */
export * as JobWorker from "./Jobs/JobWorker.js"
/** Upkeep a host schedules: purges finished import jobs, their records and reports past retention. */
export * as JobRetention from "./Jobs/JobRetention.js"
/** Operator tasks on accounts: companies, connections, API keys and stock locations (what the admin CLI runs). */
export * as Admin from "./Admin/AccountsAdmin.js"
/**
 * Stock changes the platform makes (reservations from orders and purchases), recorded in the change feed as the
 * platform's.
 */
export * as InventoryAdmin from "./Admin/InventoryAdmin.js"
/** Operator tasks on jobs across companies: list and inspect them, and resume paused ones. */
export * as JobAdmin from "./Admin/JobAdmin.js"
/** Panel people: create and disable users, sign in (throttled), find a request's session, sign out. */
export * as PeopleAdmin from "./People/PeopleAdmin.js"
/** Panel users and sessions: their schemas, roles, and how a role goes with a company. */
export * as PanelUser from "./People/PanelUser.js"
/** Sign-in failures: refused and throttled, each with a stable `code`. */
export * as PeopleErrors from "./People/PeopleErrors.js"
/** The sign-in throttle's rules: windows and limits per account and per address. */
export * as SignInThrottle from "./People/SignInThrottle.js"
/** Port: a slow, salted password hash (`hash`, `verify`). */
export * as PasswordHasher from "./People/PasswordHasher.js"
/** Port: panel users with their password hashes, sessions and sign-in failures. */
export * as People from "./People/People.js"
/** The audit log: its entries, the port, and the `Actor` whose changes the admin use cases record. */
export * as AuditLog from "./Audit/AuditLog.js"
/** The company panel's use cases: each page and form, authorized by the signed-in user's role and company. */
export * as CompanyPanel from "./Panel/CompanyPanel.js"
/** Who may do what in the company panel (administrator, owner, manager), and `PanelForbidden`. */
export * as PanelAccess from "./Panel/PanelAccess.js"

// Bodies decoded as the API does; writes under an Idempotency-Key; an API key's caller.
/** Request bodies decoded as the API decodes them: strictly, every failure a `ValidationFailed` with JSON paths. */
export * as Decode from "./Catalog/Decode.js"
/** A refused value's failure in plain words, as the API's error messages give it. */
export * as PlainIssues from "./Shared/PlainIssues.js"
/** A write of a use case as a value: what it runs, so that it can run directly or under an Idempotency-Key. */
export * as WriteCommand from "./Writes/WriteCommand.js"
/**
 * Runs a `WriteCommand` as the API runs a write: under its Idempotency-Key, a repeat answered with the stored result.
 */
export * as WriteRunner from "./Writes/WriteRunner.js"
/** Idempotency-Key handling: the key's format, its retention and a run that answers a repeat from the store. */
export * as Idempotency from "./Idempotency/Idempotency.js"
/** Turns the credentials of a request (an API key) into its `Principal`, or the error the API answers. */
export * as Authenticate from "./Auth/Authenticate.js"
/** API keys: parsing a presented key, generating one, hashing and comparing secrets, and a stored key's shape. */
export * as ApiKey from "./Auth/ApiKey.js"

// The resources: their schemas and records.
/** The names of the catalog resources and what a reference may point at. */
export * as Resource from "./Resources/Resource.js"
/** Every catalog resource's definition (body and record schemas, rules), by its path name. */
export * as Resources from "./Resources/Registry.js"
/** Fields and schemas the resources' bodies share: upsert mode, descriptions, pricing, optional keys. */
export * as CommonFields from "./Resources/CommonFields.js"
/** The brands resource: its upsert body, record and definition. */
export * as Brand from "./Brand/Brand.js"
/** The categories resource: its upsert body, record and definition. */
export * as Category from "./Category/Category.js"
/** The collections resource: its upsert body, record and definition. */
export * as Collection from "./Collection/Collection.js"
/** The customization groups resource: its upsert body, record and definition. */
export * as CustomizationGroup from "./CustomizationGroup/CustomizationGroup.js"
/** The customization options resource: its upsert body, record and definition. */
export * as CustomizationOption from "./CustomizationOption/CustomizationOption.js"
/** The customization types resource: its upsert body, record and definition. */
export * as CustomizationType from "./CustomizationType/CustomizationType.js"
/** The products resource: its upsert body (details, pricing, components), record and definition. */
export * as Product from "./Product/Product.js"
/**
 * A stored record rendered as the API returns it, in a read mode (`catalog`, `prices`, ...) and for a caller's scopes.
 */
export * as RecordView from "./Catalog/RecordView.js"
/** A reference to another record: its uuid, or `{external_id}` resolved through the caller's mappings. */
export * as Reference from "./Shared/Reference.js"
/** Translations of a record's texts into the company's enabled languages. */
export * as Translations from "./Shared/Translations.js"
/** ISO 4217 currency codes. */
export * as Currency from "./Shared/Currency.js"
/** Stock schemas: the `POST /inventory` body, stock cards, balances and locations. */
export * as Inventory from "./Inventory/Inventory.js"
/** Media schemas and limits: the media record, accepted formats and sizes, and how a stored item renders. */
export * as Media from "./Media/Media.js"
/** Import schemas: the `POST /imports` body, an import's records and their status. */
export * as Import from "./Imports/Import.js"
/** Job schemas: states, kinds, counts, and a job as the API returns it. */
export * as Job from "./Jobs/Job.js"
/** Change feed cursors: their format, encoding and decoding. */
export * as ChangeCursor from "./Changes/ChangeCursor.js"

// Errors, each with the API's `error.code`.
export type { DomainError, DomainErrorTag } from "./DomainError.js"
/** The domain errors of the catalog use cases, each with the API's `error.code`. */
export * as Errors from "./Shared/Errors.js"
/** Authentication failures (401, 403), each with the API's `error.code`. */
export * as AuthErrors from "./Auth/AuthErrors.js"
/** Stock failures, each with the API's `error.code`. */
export * as InventoryErrors from "./Inventory/InventoryErrors.js"
/** Job failures, each with the API's `error.code`. */
export * as JobErrors from "./Jobs/JobErrors.js"
/** Media pipeline failures, each with the API's `error.code`. */
export * as MediaErrors from "./Media/MediaErrors.js"

// Ids and the caller.
/** Ids: branded uuids, external ids, and the `Ids` port that makes new ones (time-ordered uuid v7). */
export * as Ids from "./Shared/Ids.js"
/** The caller of a use case: company, connection and scopes; provide `CurrentPrincipal` to run one. */
export * as Principal from "./Auth/Principal.js"
/** A company, its settings that rules depend on (currency, languages, tax), and its connections. */
export * as Company from "./Auth/Company.js"
/** API key scopes and the effective scopes of a caller. */
export * as Scope from "./Shared/Scope.js"

// The ports an adapter implements, with the types they store, and the in-process rate limiter.
/** Port: companies, connections, API keys and stock locations, as the admin tasks and authentication need them. */
export * as Accounts from "./Auth/Accounts.js"
/** Keeps resolved API keys in memory while nothing is committed, in front of an `Accounts` port. */
export * as AccountsCache from "./Auth/AccountsCache.js"
/** Port: catalog records, stored per company and resource with their revisions and index columns. */
export * as CatalogRepository from "./Catalog/CatalogRepository.js"
/** A catalog record as a `CatalogRepository` stores it, with the columns lists filter on. */
export * as StoredRecord from "./Catalog/StoredRecord.js"
/** Port: each connection's `external_id` to record id mappings. */
export * as Mappings from "./Catalog/Mappings.js"
/** Port: runs an effect in one transaction of the store, so that a write is all or nothing. */
export * as Transactor from "./Shared/Transactor.js"
/** Port: whether anything was committed to the store since a value was read, for the caches in front of it. */
export * as CommitVersion from "./Shared/CommitVersion.js"
/** Port: the change log a write appends to and the change feed reads. */
export * as ChangeLog from "./Changes/ChangeLog.js"
/** Port: the stored answers of writes made under an Idempotency-Key, with their claims and leases. */
export * as IdempotencyStore from "./Idempotency/IdempotencyStore.js"
/** Port: stock cards, balances, events and reservations. */
export * as InventoryRepository from "./Inventory/InventoryRepository.js"
/** Port: import jobs' records and their outcomes. */
export * as ImportStore from "./Imports/ImportStore.js"
/** Port: the job queue, with claims under a lease. */
export * as JobStore from "./Jobs/JobStore.js"
/** Wakes the job workers of one process when a job is queued. */
export * as JobSignal from "./Jobs/JobSignal.js"
/** Port: media records and their versions. */
export * as MediaRepository from "./Media/MediaRepository.js"
/** Ports: where image files are stored, and where uploads wait for processing. */
export * as MediaStorage from "./Media/MediaStorage.js"
/** Port: reads an image's header and makes the processed variants. */
export * as ImageProcessor from "./Media/ImageProcessor.js"
/** Port: counts requests in fixed windows, per key and per company (spec rate limits). */
export * as RateLimiter from "./RateLimit/RateLimiter.js"
/** Port: SHA-256 of texts, hex encoded. */
export * as Sha256 from "./Shared/Sha256.js"
/** The network a client address is counted in by throttles: IPv4 alone, IPv6 by its /64. */
export * as AddressNetwork from "./Shared/AddressNetwork.js"
/** The rate limiter of a single instance, in memory. */
export * as InMemoryRateLimiter from "./RateLimit/InMemoryRateLimiter.js"
