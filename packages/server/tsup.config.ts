import { defineConfig, type Options } from "tsup"

const shared: Options = {
  format: ["esm"],
  dts: false,
  // Two builds write into dist: the package's build script empties it first.
  clean: false,
  sourcemap: true,
  target: "node20",
  esbuildOptions(options) {
    options.conditions = ["@catalog-sync/source"]
  }
}

/** Effect and what its modules import statically (fast-check, for Schema's arbitraries). */
const bundledInCli = [/^effect(\/|$)/, /^@effect\//, /^fast-check(\/|$)/, /^pure-rand(\/|$)/]

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
    // The `catalog-sync` command (`npm start`, the admin CLI): effect and the @effect packages are bundled
    // too, keeping only the modules it uses. Loading them from node_modules (~1,000 files, fast-check and
    // @effect/cluster among them) was most of each start: ~1.6 s before any work, ~0.85 s bundled. Packages
    // with native code or loaded on demand (drivers, sharp, OpenTelemetry, the S3 client) stay external.
    entry: ["./src/cli.ts"],
    noExternal: [/^@catalog-sync\//, ...bundledInCli],
    external: [/^(?!@catalog-sync\/|effect(\/|$)|@effect\/|fast-check(\/|$)|pure-rand(\/|$))[@a-z]/]
  }
])
