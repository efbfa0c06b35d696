import { Schema } from "effect"
import { CompanyId, UUID } from "../Shared/Ids.js"

/**
 * What a panel user may do: a platform `admin` runs every company; an `owner` runs one company and its
 * people; a `manager` runs one company's connections, keys and locations but not its people.
 */
export const PanelRole = Schema.Literals(["admin", "owner", "manager"]).annotate({ identifier: "PanelRole" })
export type PanelRole = typeof PanelRole.Type

/** A person who signs in to the panel. `company_id` is null for an administrator and set for everyone else. */
export const PanelUser = Schema.Struct({
  id: UUID,
  /** Lower-cased and trimmed: the sign-in name, unique across the platform. */
  email: Schema.String,
  name: Schema.String,
  role: PanelRole,
  company_id: Schema.NullOr(CompanyId),
  enabled: Schema.Boolean,
  created_at: Schema.String
}).annotate({ identifier: "PanelUser" })
export type PanelUser = typeof PanelUser.Type

/**
 * A signed-in browser. `id` is the SHA-256 (hex) of the token in its cookie, which is never stored;
 * `expires_at` is the absolute end (sign-in plus the longest session), `last_seen_at` the start of the
 * idle period. `csrf_token` is random per session: every form of the session carries it.
 */
export const PanelSession = Schema.Struct({
  id: Schema.String,
  user_id: UUID,
  csrf_token: Schema.String,
  created_at: Schema.String,
  last_seen_at: Schema.String,
  expires_at: Schema.String,
  address: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PanelSession" })
export type PanelSession = typeof PanelSession.Type

/** Whether a role and a company go together: an administrator has none, everyone else exactly one. */
export const roleFitsCompany = (role: PanelRole, companyId: string | null | undefined): boolean =>
  role === "admin" ? companyId === null || companyId === undefined : typeof companyId === "string"

/** An email as it is stored and compared: trimmed and lower-cased. */
export const normalEmail = (email: string): string => email.trim().toLowerCase()
