import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/main.ts", "./src/quickstart.ts"],
  format: ["esm"],
  clean: true,
  target: "node22"
  // Every dependency stays external: the example loads the packages' builds through their exports maps,
  // as an application that installed them does.
})
