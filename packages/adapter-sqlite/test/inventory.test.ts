import { runInventoryConformance } from "@catalog-sync/core/testing"
import { tempLayer } from "./support.js"

runInventoryConformance("SQLite (file in a temp folder)", tempLayer())
