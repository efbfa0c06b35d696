import { defineConfig } from "tsup"

/**
 * The build of a library package: ESM JavaScript in `dist`, its dependencies left to node_modules.
 * Declarations come from `tsc -b` (`build/src`, the `types` of each exports map) rather than from a
 * bundled declaration file, which would keep only the type side of a name that is both a value and a
 * type (`Ids.CompanyId`) and takes minutes.
 */
export const library = (entry: Array<string>) =>
  defineConfig({
    entry,
    format: ["esm"],
    dts: false,
    clean: true,
    sourcemap: true,
    target: "node22",
    // node:sqlite and other newer built-ins exist only under the node: scheme.
    removeNodeProtocol: false
  })
