import { library } from "../../tsup.library.js"

export default library([
  "./src/index.ts",
  "./src/memory.ts",
  "./src/domain-kit.ts",
  "./src/testing.ts",
  "./src/adapter-support.ts"
])
