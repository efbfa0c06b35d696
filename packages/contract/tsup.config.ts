import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/index.ts"],
  format: ["esm"],
  // The tsconfig is a composite project for `tsc -b`; tsup's own declaration pass cannot use that mode.
  dts: { compilerOptions: { composite: false } },
  clean: true,
  sourcemap: true,
  target: "node20"
})
