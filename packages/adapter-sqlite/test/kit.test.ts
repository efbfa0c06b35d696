import { runBodyProperties, runModelHarness } from "@catalog-sync/core/testing"
import { tempLayer } from "./support.js"

runBodyProperties("SQLite (file in a temp folder)", tempLayer(), { seed: 20_261_201 })
runModelHarness("SQLite (file in a temp folder)", tempLayer(), { seed: 20_261_201, runs: 40 })
