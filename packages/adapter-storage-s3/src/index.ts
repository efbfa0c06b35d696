export * as S3MediaStorage from "./S3MediaStorage.js"
export * as S3Errors from "./S3Errors.js"
export * as S3Settings from "./S3Settings.js"
