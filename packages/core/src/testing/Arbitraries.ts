/**
 * fast-check arbitraries of the domain (the `fast-check` package itself: Effect 4 no longer re-exports it):
 * values, tenants, catalogs as graphs, valid and labelled invalid upsert bodies, stock writes.
 */
export * from "./arbitraries/Values.js"
export * from "./arbitraries/Settings.js"
export * from "./arbitraries/Catalogs.js"
export * from "./arbitraries/ValidBodies.js"
export * from "./arbitraries/InvalidBodies.js"
export * from "./arbitraries/Stock.js"
