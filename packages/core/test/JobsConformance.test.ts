import { Layer } from "effect"
import { InMemory, InMemoryJobs, runJobsConformance } from "../src/testing.js"

runJobsConformance("in memory", Layer.merge(InMemoryJobs.layer, InMemory.layer))
