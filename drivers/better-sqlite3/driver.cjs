/**
 * Which better-sqlite3 a Node.js loads, from the Node-API version it offers. Each one crashes the process
 * on some Node of the supported range, so one install holds both (as npm aliases) and the name
 * `better-sqlite3` resolves here to the one that runs:
 * - 13 is a Node-API addon whose npm package ships prebuilt binaries. It needs Node-API 10 (Node 22.14 and
 *   later, 24) and dies with a segmentation fault at load on Node 20 (Node-API 9).
 * - 12 uses V8's API and is compiled by `npm install` against the installing Node's headers. Compiled with
 *   Node 24.19's or later, it aborts the process (`Assertion failed: (env) != nullptr` in
 *   node::RemoveEnvironmentCleanupHook) when a garbage-collected prepared statement is freed.
 */
exports.driverFor = (versions) => (Number(versions.napi) >= 10 ? "better-sqlite3-13" : "better-sqlite3-12")
