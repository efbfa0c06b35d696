import { runJobsConformance } from "@catalog-sync/core/testing"
import { tempLayer } from "./support.js"

runJobsConformance("SQLite (file in a temp folder)", tempLayer())
