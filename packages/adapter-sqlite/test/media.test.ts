import { runMediaRepositoryConformance } from "@catalog-sync/core/testing"
import { tempLayer } from "./support.js"

runMediaRepositoryConformance("SQLite (file in a temp folder)", tempLayer())
