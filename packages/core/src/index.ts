/**
 * What an embedding application and an adapter author use: the use cases and admin services, the
 * resources' schemas and records, errors with their codes, ids and the caller, and the ports with the
 * types they store. A module no embedder or adapter author needs lives under `internal/` and is not
 * exported; the project's own adapters reach the few they share through `./adapter-support`.
 */

// The use cases, their maintenance tasks, and the admin services.
export * as CatalogService from "./Catalog/CatalogService.js"
export * as ChangeFeed from "./Changes/ChangeFeed.js"
export * as ImportService from "./Imports/ImportService.js"
export * as InventoryService from "./Inventory/InventoryService.js"
export * as MediaService from "./Media/MediaService.js"
export * as MediaStagingSweep from "./Media/MediaStagingSweep.js"
export * as JobService from "./Jobs/JobService.js"
export * as JobKinds from "./Jobs/JobKinds.js"
export * as JobWorker from "./Jobs/JobWorker.js"
export * as JobRetention from "./Jobs/JobRetention.js"
export * as Admin from "./Admin/AccountsAdmin.js"
export * as InventoryAdmin from "./Admin/InventoryAdmin.js"
export * as JobAdmin from "./Admin/JobAdmin.js"

// Bodies decoded as the API does; writes under an Idempotency-Key; an API key's caller.
export * as Decode from "./Catalog/Decode.js"
export * as PlainIssues from "./Shared/PlainIssues.js"
export * as WriteCommand from "./Writes/WriteCommand.js"
export * as WriteRunner from "./Writes/WriteRunner.js"
export * as Idempotency from "./Idempotency/Idempotency.js"
export * as Authenticate from "./Auth/Authenticate.js"
export * as ApiKey from "./Auth/ApiKey.js"

// The resources: their schemas and records.
export * as Resource from "./Resources/Resource.js"
export * as Resources from "./Resources/Registry.js"
export * as CommonFields from "./Resources/CommonFields.js"
export * as Brand from "./Brand/Brand.js"
export * as Category from "./Category/Category.js"
export * as Collection from "./Collection/Collection.js"
export * as CustomizationGroup from "./CustomizationGroup/CustomizationGroup.js"
export * as CustomizationOption from "./CustomizationOption/CustomizationOption.js"
export * as CustomizationType from "./CustomizationType/CustomizationType.js"
export * as Product from "./Product/Product.js"
export * as RecordView from "./Catalog/RecordView.js"
export * as Reference from "./Shared/Reference.js"
export * as Translations from "./Shared/Translations.js"
export * as Currency from "./Shared/Currency.js"
export * as Inventory from "./Inventory/Inventory.js"
export * as Media from "./Media/Media.js"
export * as Import from "./Imports/Import.js"
export * as Job from "./Jobs/Job.js"
export * as ChangeCursor from "./Changes/ChangeCursor.js"

// Errors, each with the API's `error.code`.
export type { DomainError, DomainErrorTag } from "./DomainError.js"
export * as Errors from "./Shared/Errors.js"
export * as AuthErrors from "./Auth/AuthErrors.js"
export * as InventoryErrors from "./Inventory/InventoryErrors.js"
export * as JobErrors from "./Jobs/JobErrors.js"
export * as MediaErrors from "./Media/MediaErrors.js"

// Ids and the caller.
export * as Ids from "./Shared/Ids.js"
export * as Principal from "./Auth/Principal.js"
export * as Company from "./Auth/Company.js"
export * as Scope from "./Shared/Scope.js"

// The ports an adapter implements, with the types they store, and the in-process rate limiter.
export * as Accounts from "./Auth/Accounts.js"
export * as AccountsCache from "./Auth/AccountsCache.js"
export * as CatalogRepository from "./Catalog/CatalogRepository.js"
export * as StoredRecord from "./Catalog/StoredRecord.js"
export * as Mappings from "./Catalog/Mappings.js"
export * as Transactor from "./Shared/Transactor.js"
export * as ChangeLog from "./Changes/ChangeLog.js"
export * as IdempotencyStore from "./Idempotency/IdempotencyStore.js"
export * as InventoryRepository from "./Inventory/InventoryRepository.js"
export * as ImportStore from "./Imports/ImportStore.js"
export * as JobStore from "./Jobs/JobStore.js"
export * as JobSignal from "./Jobs/JobSignal.js"
export * as MediaRepository from "./Media/MediaRepository.js"
export * as MediaStorage from "./Media/MediaStorage.js"
export * as ImageProcessor from "./Media/ImageProcessor.js"
export * as RateLimiter from "./RateLimit/RateLimiter.js"
export * as Sha256 from "./Shared/Sha256.js"
export * as InMemoryRateLimiter from "./RateLimit/InMemoryRateLimiter.js"
