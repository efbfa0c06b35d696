// Preloaded (NODE_OPTIONS=--require) by scripts/other-node.mjs under a Node that loads better-sqlite3 12:
// loads its addon from the build made for the Node that runs, so that the one in node_modules stays built
// for the Node of npm install.
const { resolve } = require("node:path")

const replacement = process.env.CATALOG_SYNC_BETTER_SQLITE3_ADDON
const installed = process.env.CATALOG_SYNC_BETTER_SQLITE3_INSTALLED
if (replacement !== undefined && replacement !== "" && installed !== undefined && installed !== "") {
  const dlopen = process.dlopen
  process.dlopen = function (module, filename, ...rest) {
    return dlopen.call(this, module, resolve(filename) === installed ? replacement : filename, ...rest)
  }
}
