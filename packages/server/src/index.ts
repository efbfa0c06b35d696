export {
  databaseFile,
  type MediaPorts,
  PersistenceLive,
  ServerLive,
  type ServerOverrides,
  ServicesLive
} from "./Server.js"
export { ServerConfig } from "./ServerConfig.js"
