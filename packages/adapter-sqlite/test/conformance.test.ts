import { runConformance } from "@catalog-sync/core/testing"
import { tempLayer } from "./support.js"

runConformance("SQLite (file in a temp folder)", tempLayer())
