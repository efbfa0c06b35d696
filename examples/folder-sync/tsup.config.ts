import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/main.ts"],
  format: ["esm"],
  dts: false,
  clean: true,
  target: "node22",
  // The workspace packages are bundled from source, so the example runs without building them.
  noExternal: [/^@catalog-sync\//],
  external: [/^(?!@catalog-sync\/)[@a-z]/],
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
})
