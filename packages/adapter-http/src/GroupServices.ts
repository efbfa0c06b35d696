import type { Layer } from "effect"
import type { HttpRouter } from "effect/http"

/** A requirement as a layer's: HttpApi types what a handler uses as each request's (`HttpRouter.Request`). */
type AtBuild<R> = R extends HttpRouter.Request<"Requires", infer Service> ? Service : R

/**
 * A group's handlers as a layer that needs the services they use when it is built. HttpApiBuilder.group
 * captures its whole context then and runs every handler in it, so a service provided to the layer is the
 * one each request uses; HttpApi's types would have it provided to every request (`HttpRouter.Request`),
 * which only costs a context merge per request for the same service.
 */
export const servicesAtBuild = <A, E, R>(group: Layer.Layer<A, E, R>): Layer.Layer<A, E, AtBuild<R>> =>
  group as unknown as Layer.Layer<A, E, AtBuild<R>>
