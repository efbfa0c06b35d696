/**
 * Media storage in an S3 or S3-compatible bucket shared by every instance (`MEDIA_STORAGE=s3`).
 *
 * @packageDocumentation
 */
/** The media storage ports in an S3 (or S3-compatible) bucket. */
export * as S3MediaStorage from "./S3MediaStorage.js"
/** How S3 failures become `MediaStorageError`s. */
export * as S3Errors from "./S3Errors.js"
/** The bucket, prefix and credentials of the S3 storage, read from `S3_*` settings. */
export * as S3Settings from "./S3Settings.js"
