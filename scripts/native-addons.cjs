// Preloaded (NODE_OPTIONS=--require) by scripts/other-node.mjs: loads better-sqlite3's addon from the build
// made for the Node that runs, so that the one in node_modules stays built for the Node of npm install.
const { basename } = require("node:path")

const replacement = process.env.CATALOG_SYNC_BETTER_SQLITE3_ADDON
if (replacement !== undefined && replacement !== "") {
  const dlopen = process.dlopen
  process.dlopen = function (module, filename, ...rest) {
    return dlopen.call(this, module, basename(filename) === "better_sqlite3.node" ? replacement : filename, ...rest)
  }
}
