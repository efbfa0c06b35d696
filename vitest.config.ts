import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@catalog-sync\/([a-z0-9-]+)\/([a-z]+)$/, replacement: src("$1/src/$2.ts") },
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
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
