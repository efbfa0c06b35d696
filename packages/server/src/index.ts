export { databaseFile, PersistenceLive, ServerLive, ServicesLive } from "./Server.js"
export { ServerConfig } from "./ServerConfig.js"
