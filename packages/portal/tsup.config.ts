import { spawnSync } from "node:child_process"
import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/index.ts", "./src/build.ts", "./src/precompress.ts"],
  format: ["esm"],
  // Internal package: the server bundles it from source, so no declarations are needed.
  dts: false,
  // The brotli copies stay: the next build compresses only files whose content changed.
  clean: ["!precompressed/**"],
  sourcemap: true,
  target: "node22",
  // node:sqlite and other newer built-ins exist only under the node: scheme.
  removeNodeProtocol: false,
  // `npm run portal` runs the bundle without a build of the other workspace packages.
  noExternal: [/^@catalog-sync\//],
  external: [/^(?!@catalog-sync\/)[@a-z]/],
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  },
  // Servers then send the portal brotli from their first request, without 10-27 s of brotli each.
  onSuccess: async () => {
    const run = spawnSync(process.execPath, ["dist/precompress.js"], { stdio: "inherit" })
    if (run.status !== 0) throw new Error("dist/precompress.js failed")
  }
})
