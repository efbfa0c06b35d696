export * as SharpImageProcessor from "./SharpImageProcessor.js"
