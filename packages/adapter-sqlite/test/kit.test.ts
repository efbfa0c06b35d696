import { runBodyProperties } from "@catalog-sync/core/testing"
import { tempLayer } from "./support.js"

runBodyProperties("SQLite (file in a temp folder)", tempLayer(), { seed: 20_261_201 })
