import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/index.ts", "./src/testing.ts"],
  format: ["esm"],
  dts: { compilerOptions: { composite: false } },
  clean: true,
  sourcemap: true,
  target: "node20"
})
