import { defineConfig, type Options } from "tsup"

const shared: Options = {
  format: ["esm"],
  dts: false,
  // Two builds write into dist: the package's build script empties it first.
  clean: false,
  sourcemap: true,
  target: "node22",
  // node:sqlite and other newer built-ins exist only under the node: scheme.
  removeNodeProtocol: false,
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
}

/**
 * What the `catalog-sync` command still loads from node_modules: native addons and the drivers and SDKs
 * that the bundled workspace packages declare themselves (pg, OpenTelemetry, the S3 client, marked), as
 * alternatives of a regular expression: the patterns of what is bundled and what is not are built from it.
 */
const externalInCli = "(better-sqlite3|sharp|pg|marked)(/|$)|@opentelemetry/|@aws-sdk/"

export default defineConfig([
  {
    ...shared,
    // The library entry (the Layers an application composes): the workspace packages are bundled from
    // source, and every other package, effect above all, is the application's own copy from node_modules.
    entry: ["./src/index.ts"],
    noExternal: [/^@catalog-sync\//],
    external: [/^(?!@catalog-sync\/)[@a-z]/]
  },
  {
    ...shared,
    // The `catalog-sync` command (`npm start`, the admin CLI): everything else is bundled too, effect and
    // the @effect packages with their own dependencies, keeping only the modules used. Loading them from
    // node_modules (~1,000 files, fast-check and @effect/cluster among them) was most of each start:
    // ~1.6 s before any work, ~0.8 s bundled. Bundled, their dependencies are the versions they asked for,
    // not whichever copy an install hoisted.
    entry: ["./src/cli.ts"],
    noExternal: [new RegExp(`^(?!${externalInCli})[@a-z]`)],
    external: [new RegExp(`^(${externalInCli})`)],
    // Bundled CommonJS packages (undici, ws, the pg helpers) call `require`: an ES module has none of its own.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);'
    }
  }
])
