import { defineConfig } from "tsup"
import { library } from "../../tsup.library.js"
import bin from "./tsup.bin.config.js"

export default defineConfig([
  // The command's folder (dist/bin) is built by the second config.
  { ...library(["./src/index.ts", "./src/loader.ts"]), clean: ["!bin/**"] },
  bin
])
