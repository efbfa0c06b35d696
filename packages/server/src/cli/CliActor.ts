/** Who the admin commands act as in the audit log: `cli:<os user>`. */
import type { AuditLog } from "@catalog-sync/core"
import { userInfo } from "node:os"

const osUser = (): string => {
  try {
    return userInfo().username
  } catch {
    // A uid without a passwd entry (common in containers): the environment, else the number.
    return process.env["USER"] ?? process.env["LOGNAME"] ?? String(process.getuid?.() ?? "unknown")
  }
}

/** The CLI's actor, as `AuditLog.Actor` takes it. */
export const cliActor = (): AuditLog.Actor => ({ label: `cli:${osUser()}`, userId: null, address: null })
