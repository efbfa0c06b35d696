import { Effect } from "effect"
import type { ResourceDefinition } from "./ResourceDefinition.js"

/** For resources whose documents need no cross-record rules. */
export const noViolations: ResourceDefinition["validate"] = () => Effect.succeed([])
export const noBodyChecks: ResourceDefinition["checkBody"] = () => []
