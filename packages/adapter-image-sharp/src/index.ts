/**
 * The `ImageProcessor` port of `@catalog-sync/core` with sharp (libvips): the server's image pipeline, turning
 * accepted uploads into WebP.
 *
 * @packageDocumentation
 */
/** The `ImageProcessor` port with sharp (libvips), accepting JPEG, PNG and WebP only. */
export * as SharpImageProcessor from "./SharpImageProcessor.js"
