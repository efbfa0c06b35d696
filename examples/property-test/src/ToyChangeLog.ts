/**
 * An adapter of the application's own: the change log kept in an array. It takes part in the transactions
 * of the Transactor it is given (each one, nested ones included, snapshots the array and restores it on
 * failure; a reader outside them sees what the outermost ones committed), numbers each company's changes
 * 1, 2, 3... and reads the reader's external ids through the Mappings port.
 */
import { ChangeLog, Mappings, Transactor } from "@catalog-sync/core"
import { Context, Effect, Layer } from "effect"

type Entry = ChangeLog.ChangeEntry

/** Each layer built has its own transaction flag (see `inTransaction`). */
let instances = 0

export const layer: Layer.Layer<
  ChangeLog.ChangeLog | Transactor.Transactor,
  never,
  Transactor.Transactor | Mappings.Mappings
> = Layer.effectContext(
  Effect.gen(function* () {
    const base = yield* Transactor.Transactor
    const mappings = yield* Mappings.Mappings
    // Replaced, never changed in place: a transaction's snapshot is the array it started with.
    let entries: ReadonlyArray<Entry> = []
    // What readers outside a transaction see: a cursor handed out must never be taken back by a rollback.
    let committed: ReadonlyArray<Entry> = []

    const restoringOnFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const snapshot = entries
        return Effect.onExit(effect, (exit) =>
          Effect.sync(() => {
            if (exit._tag === "Failure") entries = snapshot
          })
        )
      })

    // Whether the fiber is inside one of this Transactor's transactions: `atomically` joins an open one
    // without a savepoint, so a failure it lets the caller catch undoes nothing, as on a SQL database.
    // A reference of this instance's own: another toy log's transaction is not one of this one's.
    const inTransaction = Context.Reference<boolean>(`toy-change-log/in-transaction/${++instances}`, {
      defaultValue: () => false
    })
    const withTransaction: Transactor.Transactor["Service"]["withTransaction"] = (effect) =>
      Effect.flatMap(inTransaction, (nested) =>
        base.withTransaction(restoringOnFailure(Effect.provideService(effect, inTransaction, true))).pipe(
          Effect.tap(() =>
            Effect.sync(() => {
              if (!nested) committed = entries
            })
          )
        )
      )
    const transactor = Transactor.Transactor.of({
      withTransaction,
      atomically: (effect) =>
        Effect.flatMap(inTransaction, (open) => (open ? base.atomically(effect) : withTransaction(effect)))
    })

    const visible = Effect.map(inTransaction, (open) => (open ? entries : committed))
    const ofCompany = (companyId: string) =>
      Effect.map(visible, (seen) => seen.filter((entry) => entry.companyId === companyId))
    const add = (more: ReadonlyArray<Entry>) =>
      Effect.flatMap(inTransaction, (open) =>
        Effect.sync(() => {
          entries = [...entries, ...more]
          if (!open) committed = entries
        })
      )

    const changeLog = ChangeLog.ChangeLog.of({
      append: (entry) => add([entry]),
      appendMany: add,
      head: (companyId) => Effect.map(ofCompany(companyId), (own) => own.length),
      read: (query) =>
        Effect.gen(function* () {
          const page = (yield* ofCompany(query.companyId))
            .map((entry, i) => ({ entry, position: i + 1 }))
            .filter(
              ({ entry, position }) =>
                position > query.after &&
                position <= query.upTo &&
                (ChangeLog.maskOf(ChangeLog.partsOf(entry)) & query.visibleMask) !== 0 &&
                (query.resources === undefined || query.resources.includes(entry.resource))
            )
            .slice(0, query.limit)
          // The reader's external ids, one lookup per resource on the page.
          const externalIds = new Map<string, string>()
          for (const resource of new Set(page.map(({ entry }) => entry.resource))) {
            const found = yield* mappings.externalIdsOf(
              {
                companyId: query.companyId,
                connectionId: query.connectionId,
                resource: resource as Mappings.MappingScope["resource"]
              },
              page.filter(({ entry }) => entry.resource === resource).map(({ entry }) => entry.recordId)
            )
            for (const [id, externalId] of found) externalIds.set(`${resource}|${id}`, externalId)
          }
          return page.map(({ entry: { parts: _, ...change }, position }) => ({
            ...change,
            position,
            externalId: externalIds.get(`${change.resource}|${change.recordId}`) ?? null
          }))
        }),
      // This log never held positions of the former global sequence.
      fromGlobalPosition: () => Effect.succeed(0)
    })

    return Context.make(ChangeLog.ChangeLog, changeLog).pipe(Context.add(Transactor.Transactor, transactor))
  })
)
