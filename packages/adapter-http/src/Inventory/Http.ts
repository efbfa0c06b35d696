import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Decode, type IdempotencyStore, Inventory, InventoryService, type Transactor } from "@catalog-sync/core"
import { Effect, type Layer } from "effect"
import type { Authentication } from "@catalog-sync/contract"
import { Api, Common } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { decodedBody, writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"

const decodeBody = Decode.decoderOf(Inventory.StockWrite, "the body")

/** Handlers of the inventory endpoints: they only call core and shape envelopes; a write decodes its body (`decodedBody`). */
export const InventoryHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"catalog-sync", "inventory">,
  never,
  InventoryService.InventoryService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = HttpApiBuilder.group(Api, "inventory", (handlers) =>
  Effect.gen(function* () {
    const inventory = yield* InventoryService.InventoryService
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* api(
            inventory.list({
              limit: urlParams.limit ?? Common.defaultLimit,
              cursor: urlParams.cursor,
              sourceKind: urlParams.source_kind,
              sourceId: urlParams.source_id,
              locationId: urlParams.location_id
            })
          )
          return { request_id: yield* requestId, ...page }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const record = yield* api(inventory.get(path.id))
          return { request_id: yield* requestId, record }
        })
      )
      .handleRaw("write", ({ headers }) =>
        Effect.gen(function* () {
          const payload = yield* decodedBody(decodeBody, () => inventory.authorizeWrite)
          return yield* writeEnvelope(headers["idempotency-key"], payload, inventory.writeCommand(payload))
        })
      )
  })
)
