import { InMemory, InMemoryInventory, runInventoryConformance } from "@catalog-sync/core/testing"
import { Layer } from "effect"

runInventoryConformance("in memory", InMemoryInventory.layer.pipe(Layer.provide(InMemory.layer)))
