import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@catalog-sync\/core\/testing$/, replacement: src("core/src/testing.ts") },
      { find: /^@catalog-sync\/([a-z-]+)$/, replacement: src("$1/src/index.ts") }
    ]
  },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
