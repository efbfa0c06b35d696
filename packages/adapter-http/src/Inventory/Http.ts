import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Decode, type IdempotencyStore, Inventory, InventoryService, type Transactor } from "@catalog-sync/core"
import { Effect, type Layer } from "effect"
import type { Authentication } from "@catalog-sync/contract"
import { Api, Common } from "@catalog-sync/contract"
import { api } from "../ErrorResponses.js"
import { rawWrite, writeEnvelope } from "../Writes.js"
import { requestId } from "../RequestId.js"
import { servicesAtBuild } from "../GroupServices.js"

const decodeBody = Decode.decoderOf(Inventory.StockWrite, "the body")

/** Handlers of the inventory endpoints: they only call core and shape envelopes; a write is raw, its body decoded once (Answers.ts). */
export const InventoryHttpLive: Layer.Layer<
  HttpApiGroup.Service<"catalog-sync", "inventory">,
  never,
  InventoryService.InventoryService | IdempotencyStore.IdempotencyStore | Transactor.Transactor | Authentication
> = servicesAtBuild(
  HttpApiBuilder.group(Api, "inventory", (handlers) =>
    Effect.gen(function* () {
      const inventory = yield* InventoryService.InventoryService
      return handlers
        .handle("list", ({ query }) =>
          Effect.gen(function* () {
            const page = yield* api(
              inventory.list({
                limit: query.limit ?? Common.defaultLimit,
                cursor: query.cursor,
                sourceKind: query.source_kind,
                sourceId: query.source_id,
                locationId: query.location_id
              })
            )
            return { request_id: yield* requestId, ...page }
          })
        )
        .handle("get", ({ params }) =>
          Effect.gen(function* () {
            const record = yield* api(inventory.get(params.id))
            return { request_id: yield* requestId, record }
          })
        )
        .handleRaw(
          "write",
          rawWrite({ decode: decodeBody, authorize: () => inventory.authorizeWrite }, (payload, { headers }) =>
            writeEnvelope(headers["idempotency-key"], payload, inventory.writeCommand(payload))
          )
        )
    })
  )
)
