import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@catalog-sync\/([a-z0-9-]+)\/([a-z-]+)$/, replacement: src("$1/src/$2.ts") },
      { find: /^@catalog-sync\/([a-z0-9-]+)$/, replacement: src("$1/src/index.ts") }
    ]
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: [
      "default",
      [
        "json",
        {
          outputFile:
            process.env.TEST_RESULTS_FILE ??
            (process.env.TEST_DATABASE === "postgres" ? "build/test-results-postgres.json" : "build/test-results.json")
        }
      ]
    ],
    // Vitest's default (one fewer than the cores) runs the files one at a time on a 2-core machine, where
    // most of a file's time is spent waiting on the servers, databases and processes it starts: two at a
    // time took the SQLite suite from ~6.2 to ~4.7 minutes and the PostgreSQL one from ~4.8 to ~2.9.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
