/**
 * The server as layers, for a program that runs it in-process: its configuration, the persistence and services it
 * builds, and the whole server.
 *
 * @packageDocumentation
 */
export {
  databaseFile,
  type MediaPorts,
  PersistenceLive,
  ServerLive,
  type ServerOverrides,
  ServicesLive
} from "./Server.js"
export { ServerConfig } from "./ServerConfig.js"
