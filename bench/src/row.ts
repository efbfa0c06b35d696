/** One line of the benchmark's table (and of bench/results/<time>.json). */
export interface Row {
  readonly scenario: string
  readonly measure: string
  readonly value: number
  readonly unit: string
  readonly baseline?: string
  readonly baselineValue?: number
  /** Median of the per-round ratios value/baseline (for costs: baseline/value flipped as noted). */
  readonly ratio?: number
  readonly target?: string
  readonly met?: boolean
  readonly note?: string
  readonly rounds?: unknown
}
