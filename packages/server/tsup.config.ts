import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/index.ts", "./src/cli.ts"],
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The workspace packages are bundled from source, so `npm start` needs only this build.
  noExternal: [/^@catalog-sync\//],
  // Every other package (effect, drivers with native code) is loaded from node_modules at run time.
  external: [/^(?!@catalog-sync\/)[@a-z]/],
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
})
