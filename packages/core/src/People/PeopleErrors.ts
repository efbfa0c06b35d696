import { Schema } from "effect"

/**
 * A sign-in that did not succeed: an unknown email, a wrong password and a disabled account all fail
 * alike, after the same work, so the answer tells nothing about which accounts exist.
 */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", {
  message: Schema.String
}) {
  get code(): "sign_in_refused" {
    return "sign_in_refused"
  }
}

/** Too many failed sign-ins for the account or from the address lately; try again after `retryAfterSeconds`. */
export class SignInThrottled extends Schema.TaggedError<SignInThrottled>()("SignInThrottled", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {
  get code(): "sign_in_throttled" {
    return "sign_in_throttled"
  }
}

/** Disabling this owner would leave their company with no enabled owner: another owner is enabled first. */
export class LastEnabledOwner extends Schema.TaggedError<LastEnabledOwner>()("LastEnabledOwner", {
  message: Schema.String
}) {
  get code(): "last_owner" {
    return "last_owner"
  }
}
