import { runMediaRepositoryConformance } from "@catalog-sync/core/testing"
import { serverLikeLayer, tempLayer } from "./support.js"

runMediaRepositoryConformance("SQLite (file in a temp folder)", tempLayer())
runMediaRepositoryConformance("SQLite (as the server runs it: tracer off, side-connection reads)", serverLikeLayer())
