import { Effect } from "effect"
import type { Violation } from "./ResourceDefinition.js"

/** For resources whose documents need no cross-record rules. */
export const noViolations = (): Effect.Effect<ReadonlyArray<Violation>> => Effect.succeed([])
/** For resources whose bodies need no rules beyond their schema. */
export const noBodyChecks = (): ReadonlyArray<Violation> => []
