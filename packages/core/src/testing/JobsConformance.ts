import { layer } from "@effect/vitest"
import type { Layer } from "effect"
import { importStoreCases } from "./ImportStoreConformance.js"
import { jobQueueCases } from "./JobQueueConformance.js"
import { jobRequeueCases } from "./JobRequeueConformance.js"
import { type JobPorts, jobsSuite } from "./JobsFixtures.js"

/**
 * The contract of JobStore and ImportStore (in memory, SQLite, PostgreSQL): the queue, requeues, and
 * import records.
 */
export const runJobsConformance = (name: string, ports: Layer.Layer<JobPorts, unknown>) =>
  layer(ports, { timeout: 60_000 })(`jobs port conformance: ${name}`, (it) => {
    const suite = jobsSuite()
    jobQueueCases(it, suite)
    jobRequeueCases(it, suite)
    importStoreCases(it, suite)
  })
