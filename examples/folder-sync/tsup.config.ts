import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/main.ts"],
  format: ["esm"],
  dts: false,
  clean: true,
  target: "node22",
  // node:sqlite and other newer built-ins exist only under the node: scheme.
  removeNodeProtocol: false,
  // The workspace packages are bundled from source, so the example runs without building them.
  noExternal: [/^@catalog-sync\//],
  external: [/^(?!@catalog-sync\/)[@a-z]/],
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
})
