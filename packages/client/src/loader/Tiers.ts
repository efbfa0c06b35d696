/**
 * The records phase: tier after tier in the order of Order.ts (parents before children, single products
 * before bundles), each tier cut into batches sent at most `maxPending` at a time; small consecutive
 * tiers share one batch.
 */
import { Effect, type FileSystem, Stream } from "effect"
import { type Batch, batches, type InputRecord, maxRecords } from "./Batch.js"
import type { Source } from "./Sources.js"
import type { LoadError } from "./LoadError.js"
import { categoryLevels, groupTiers, isBundle, plan, type Tier, tierName } from "./Order.js"
import { lineId, recordId } from "./Report.js"
import type { Run } from "./Run.js"
import { type Scan, tierRecords } from "./Scan.js"

export const sendTiers = (
  run: Run,
  input: ReadonlyArray<Source>,
  scan: Scan,
  send: (batch: Batch) => Effect.Effect<void, LoadError>
): Effect.Effect<void, LoadError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const levels = categoryLevels(scan.parents)
    const depth = Math.max(0, ...levels.values()) + 1
    const levelOf = (record: InputRecord) =>
      record.resource === "categories"
        ? (levels.get(String(record.body.external_id)) ?? 0)
        : record.resource === "products" && isBundle(record.body)
          ? 1
          : 0
    const present = new Set(Array.from(scan.validTotals.keys()))
    const tiers = plan(present, depth, scan.bundles > 0)
    const tierIndex = (record: InputRecord) =>
      tiers.findIndex((t) => t.resource === record.resource && t.level === levelOf(record))
    const tierTotal = (tier: Tier) =>
      tier.resource === "categories"
        ? scan.categories.filter((id) => (levels.get(id) ?? 0) === tier.level).length
        : tier.resource === "products"
          ? tier.level === 1
            ? scan.bundles
            : (scan.validTotals.get("products") ?? 0) - scan.bundles
          : (scan.validTotals.get(tier.resource) ?? 0)
    const batchSize = run.options.batchSize ?? maxRecords
    for (const group of groupTiers(tiers, tierTotal, batchSize)) {
      for (const tier of group) run.progress.start(tier.resource)
      const inGroup = (record: InputRecord) =>
        group.some((t) => t.resource === record.resource && t.level === levelOf(record)) &&
        run.isSelected([recordId(record), lineId(record.position)])
      const records = tierRecords(input, scan, new Set(group.map((t) => t.resource)), run.options).pipe(
        Stream.filter(inGroup)
      )
      const name = group.map(tierName).join("+")
      if (group.length === 1) {
        yield* batches(records, name, { size: batchSize, salt: run.salt }).pipe(
          Stream.mapEffect(send, { concurrency: run.maxPending, unordered: true }),
          Stream.runDrain
        )
        continue
      }
      // Small tiers together: at most one batch, in tier order, so that a split by size keeps parents first.
      const collected = Array.from(yield* Stream.runCollect(records))
      const sorted = collected
        .map((record) => [tierIndex(record), record] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, record]) => record)
      yield* batches(Stream.fromIterable(sorted), name, { size: batchSize, salt: run.salt }).pipe(
        Stream.mapEffect(send),
        Stream.runDrain
      )
    }
  })
