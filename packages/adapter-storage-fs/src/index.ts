export * as FsMediaStorage from "./FsMediaStorage.js"
