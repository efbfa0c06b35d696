import { defineConfig } from "tsup"
import bin from "./tsup.bin.config.js"

export default defineConfig([
  {
    entry: ["./src/index.ts", "./src/loader.ts"],
    format: ["esm"],
    // The tsconfig is a composite project for `tsc -b`; tsup's own declaration pass cannot use that mode.
    dts: { compilerOptions: { composite: false } },
    // The command's folder is built by the second config.
    clean: ["!bin/**"],
    sourcemap: true,
    target: "node20"
  },
  bin
])
