/**
 * fast-check arbitraries of the domain (from `effect`'s `FastCheck`, the same fast-check `Arbitrary.make`
 * builds on): values, tenants, catalogs as graphs, valid and labelled invalid upsert bodies, stock writes.
 */
export * from "./arbitraries/Values.js"
export * from "./arbitraries/Settings.js"
export * from "./arbitraries/Catalogs.js"
export * from "./arbitraries/ValidBodies.js"
export * from "./arbitraries/InvalidBodies.js"
export * from "./arbitraries/Stock.js"
