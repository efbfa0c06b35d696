import { InMemory, runConformance } from "@catalog-sync/core/testing"

runConformance("in memory", InMemory.layer)
