/**
 * Media storage in a folder of the local file system: the server's default (`MEDIA_STORAGE=fs`).
 *
 * @packageDocumentation
 */
/** The media storage ports in a folder of the local file system. */
export * as FsMediaStorage from "./FsMediaStorage.js"
