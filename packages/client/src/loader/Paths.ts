/** Where a load keeps its files: the state file and the failure report. */

export const defaultStatePath = "catalog-sync-load.state.jsonl"
export const defaultReportPath = "catalog-sync-load.failures.jsonl"
export const defaultDryRunReportPath = "catalog-sync-load.dry-run.jsonl"

export interface Paths {
  /** Undefined for a dry run, which keeps its state in memory. */
  readonly statePath: string | undefined
  readonly reportPath: string
}

/** The state file and the report of a load (see LoadOptions). */
export const locate = (options: {
  readonly dryRun?: boolean
  readonly statePath?: string
  readonly reportPath?: string
}): Paths => {
  const dryRun = options.dryRun === true
  return {
    statePath: dryRun ? undefined : (options.statePath ?? defaultStatePath),
    reportPath: options.reportPath ?? (dryRun ? defaultDryRunReportPath : defaultReportPath)
  }
}
