import { runInventoryConformance } from "@catalog-sync/core/testing"
import { serverLikeLayer, tempLayer } from "./support.js"

runInventoryConformance("SQLite (file in a temp folder)", tempLayer())
runInventoryConformance("SQLite (as the server runs it: tracer off, side-connection reads)", serverLikeLayer())
