import { defineConfig } from "tsup"

// The command, bundled like the server: workspace packages from source, everything else (effect,
// @effect/platform, cli-progress) loaded from node_modules at run time, so it needs only this build.
export default defineConfig({
  entry: { "catalog-sync-load": "./src/bin/catalog-sync-load.ts" },
  outDir: process.env.CATALOG_SYNC_LOAD_OUT_DIR ?? "dist/bin",
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node22",
  // node:sqlite and other newer built-ins exist only under the node: scheme.
  removeNodeProtocol: false,
  silent: true,
  noExternal: [/^@catalog-sync\//],
  external: [/^(?!@catalog-sync\/)[@a-z]/],
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
})
