import { Schema } from "effect"

/** Why a request is unauthenticated; each is an `error.code`. */
export const UnauthenticatedReason = Schema.Literals([
  "missing_credentials",
  "invalid_credentials",
  "key_expired",
  "key_revoked",
  "connection_disabled",
  "company_disabled",
  "subscription_inactive"
])
export type UnauthenticatedReason = typeof UnauthenticatedReason.Type

/** The request carries no usable credentials (401); `reason` is the error code. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: UnauthenticatedReason,
  message: Schema.String
}) {
  get code(): UnauthenticatedReason {
    return this.reason
  }
}

/** The request came through another company's custom domain (403). */
export class DomainNotPermitted extends Schema.TaggedError<DomainNotPermitted>()("DomainNotPermitted", {
  message: Schema.String
}) {
  get code(): "domain_not_permitted" {
    return "domain_not_permitted"
  }
}
