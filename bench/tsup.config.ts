import { defineConfig } from "tsup"

// The benchmark is bundled like the server: workspace packages from source, everything else (effect,
// better-sqlite3, autocannon) loaded from node_modules at run time. Output goes to bench/dist (ignored).
export default defineConfig({
  entry: { main: "bench/src/main.ts", servers: "bench/src/servers.ts" },
  outDir: "bench/dist",
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: false,
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
