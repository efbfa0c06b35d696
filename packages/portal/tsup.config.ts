import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/index.ts", "./src/build.ts"],
  format: ["esm"],
  // Internal package: the server bundles it from source, so no declarations are needed.
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node22",
  // node:sqlite and other newer built-ins exist only under the node: scheme.
  removeNodeProtocol: false,
  // `npm run portal` runs the bundle without a build of the other workspace packages.
  noExternal: [/^@catalog-sync\//],
  external: [/^(?!@catalog-sync\/)[@a-z]/],
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
})
