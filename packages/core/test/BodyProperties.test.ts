import { runBodyProperties } from "../src/testing.js"
import { InMemory } from "../src/memory.js"

runBodyProperties("in memory", InMemory.layer, { seed: 20_261_201 })
