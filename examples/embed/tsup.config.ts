import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["./src/main.ts", "./src/quickstart.ts"],
  format: ["esm"],
  clean: true,
  target: "node22",
  // node:sqlite and other newer built-ins exist only under the node: scheme.
  removeNodeProtocol: false
  // Every dependency stays external: the example loads the packages' builds through their exports maps,
  // as an application that installed them does.
})
