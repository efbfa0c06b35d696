import { runJobsConformance } from "@catalog-sync/core/testing"
import { serverLikeLayer, tempLayer } from "./support.js"

runJobsConformance("SQLite (file in a temp folder)", tempLayer())
runJobsConformance("SQLite (as the server runs it: tracer off, side-connection reads)", serverLikeLayer())
