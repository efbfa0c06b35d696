import { Context, type Effect } from "effect"

/**
 * Port: a slow, salted, memory-hard password hash. `hash` returns a self-describing string (algorithm,
 * parameters, salt and hash) and `verify` reads its parameters from that string, so parameters can be
 * raised later without breaking stored passwords. `verify` compares in constant time and answers false
 * for a string it cannot read.
 */
export class PasswordHasher extends Context.Service<
  PasswordHasher,
  {
    readonly hash: (password: string) => Effect.Effect<string>
    readonly verify: (password: string, stored: string) => Effect.Effect<boolean>
  }
>()("@catalog-sync/core/PasswordHasher") {}
