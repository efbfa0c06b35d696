/**
 * The package graph's rules, checked in `npm test` (packages/server/test/dependencies.test.ts):
 * core imports `effect` only; adapters never import each other (the engine packages build on adapter-sql);
 * the client and the portal use the contract only; no package reaches into another by a relative path
 * or into core's internal/; no cycles.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "A cycle between modules makes their load order, and so their meaning, depend on who imports first; one through a type-only import still ties two modules into one that cannot be read or moved alone.",
      severity: "error",
      from: { path: "^packages/[^/]+/src/" },
      to: { circular: true }
    },
    {
      name: "core-imports-effect-only",
      comment: "Core is the domain: no SQL, file system, HTTP, image library or test runner outside its testing entry.",
      severity: "error",
      from: { path: "^packages/core/src/", pathNot: "^packages/core/src/(testing\\.ts|testing/)" },
      to: { dependencyTypes: ["npm", "npm-dev", "npm-peer", "npm-optional", "core"], pathNot: "^node_modules/effect/" }
    },
    {
      name: "no-relative-import-across-packages",
      comment: "A package uses another through its name and exports, never by a path into its files.",
      severity: "error",
      from: { path: "^packages/([^/]+)/" },
      to: { path: "^packages/", pathNot: "^packages/$1/", dependencyTypes: ["local"] }
    },
    {
      name: "core-internals-stay-in-core",
      comment:
        "Core's internal/ modules are not its surface: other packages use its entries (index, memory, testing, adapter-support).",
      severity: "error",
      from: { pathNot: "^packages/core/" },
      to: { path: "^packages/core/src/internal/" }
    },
    {
      name: "adapters-do-not-import-adapters",
      comment: "Adapters implement core's ports side by side; only the engine packages build on adapter-sql.",
      severity: "error",
      from: { path: "^packages/(adapter-[^/]+)/src/" },
      to: { path: "^packages/adapter-", pathNot: ["^packages/$1/", "^packages/adapter-sql/"] }
    },
    {
      name: "clients-use-the-contract-only",
      comment: "The typed client and the portal derive from the contract: no server, adapter or core internals.",
      severity: "error",
      from: { path: "^packages/(client|portal)/src/" },
      to: { path: "^packages/", pathNot: ["^packages/(client|portal|contract)/"] }
    },
    {
      name: "adapter-sql-engines-only",
      comment: "adapter-sql is the base of the engine packages, not of the other adapters.",
      severity: "error",
      from: { path: "^packages/adapter-(http|image-sharp|storage-fs|storage-s3)/src/" },
      to: { path: "^packages/adapter-sql/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(/dist/|/build/|\\.d\\.ts$)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      conditionNames: ["@catalog-sync/source", "import", "types", "default"],
      extensions: [".ts", ".js"],
      exportsFields: ["exports"],
      mainFields: ["module", "main", "types"]
    }
  }
}
