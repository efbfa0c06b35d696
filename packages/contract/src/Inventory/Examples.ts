/** Examples of the inventory endpoints (stock cards and stock writes). */
import type { Inventory } from "@catalog-sync/core"
import type { Schema } from "effect"
import { at, ids } from "../ExampleData.js"
import {
  errorExample,
  exampleRequestId,
  type Examples,
  idempotencyConflicts,
  idempotencyKeyInvalid,
  issuesExample,
  type OperationExamples
} from "../Examples.js"

const card = {
  id: ids.stockCard,
  source_kind: "product",
  source_id: ids.product,
  source_external_id: "sofa-oslo-3",
  created_at: at.created,
  updated_at: at.updated,
  balances: [
    { location_id: ids.location, physical: "9", reserved: "2", incoming: "0", revision: 2, updated_at: at.updated }
  ]
} satisfies Schema.Codec.Encoded<typeof Inventory.StockCardRecord>

const stockNotEnabled: Examples = {
  stock_not_enabled: errorExample("The company has no stock package or inventory module", {
    code: "stock_not_enabled",
    message: "stock features need an active stock package and an enabled inventory module"
  })
}

const scope = (name: string): Examples => ({
  insufficient_scope: errorExample(`The key lacks ${name}`, {
    code: "insufficient_scope",
    message: `this operation needs the scope ${name}`,
    details: { required: [name] }
  })
})

export const inventoryListExamples: OperationExamples = {
  responses: {
    200: {
      page: {
        summary: "Stock cards with their balances per location",
        value: { request_id: exampleRequestId, records: [card], next_cursor: ids.stockCard, has_more: true }
      },
      last: {
        summary: "The last page",
        value: { request_id: exampleRequestId, records: [card], next_cursor: null, has_more: false }
      }
    },
    403: { ...scope("stock:read"), ...stockNotEnabled },
    422: {
      validation_failed: issuesExample(
        "source_kind is not product or option",
        "validation_failed",
        "query parameters are not valid",
        [{ path: "query.source_kind", message: 'must be "product" or "option"' }]
      )
    }
  }
}

export const inventoryGetExamples: OperationExamples = {
  responses: {
    200: {
      card: {
        summary: "One stock card; each balance carries its location revision",
        value: { request_id: exampleRequestId, record: card }
      }
    },
    403: { ...scope("stock:read"), ...stockNotEnabled },
    404: {
      not_found: errorExample("Not a stock card id (a product id, say)", {
        code: "not_found",
        message: `no inventory item ${ids.product} in this company (ids are stock card ids, not product ids)`,
        details: { resource: "inventory" }
      })
    }
  }
}

const write = {
  event_id: ids.stockEvent,
  source_kind: "product",
  source_id: { external_id: "sofa-oslo-3" },
  location_id: ids.location,
  action: "set",
  quantity: "9",
  revision: 1,
  note: "Stock count 2025-01-14"
} satisfies Schema.Codec.Encoded<typeof Inventory.StockWrite>

export const inventoryWriteExamples: OperationExamples = {
  request: {
    first: {
      summary: "The first balance of a product at a location: revision 0",
      value: {
        ...write,
        event_id: "8e2f4a6c-1b3d-4e5f-a7b9-c1d3e5f7a9b1",
        quantity: "12",
        revision: 0,
        note: "Opening stock"
      }
    },
    set: { summary: "Set the counted stock (send the balance's current revision)", value: write },
    out: {
      summary: "Take 1 out",
      value: {
        ...write,
        event_id: "c7d9e1f3-a5b7-4c9d-8e1f-3a5b7c9d1e3f",
        action: "out",
        quantity: "1",
        revision: 2,
        note: "Damaged in the showroom"
      }
    }
  },
  responses: {
    200: {
      updated: {
        summary: "Physical stock changed; reserved and incoming stay",
        value: {
          request_id: exampleRequestId,
          outcome: "updated",
          record: card,
          event: {
            event_id: ids.stockEvent,
            item_id: ids.stockCard,
            location_id: ids.location,
            action: "set",
            quantity: "9",
            note: "Stock count 2025-01-14",
            physical_before: "12",
            physical_after: "9",
            revision: 2,
            connection_id: ids.connection,
            at: at.updated
          }
        }
      }
    },
    403: {
      ...scope("stock:write"),
      location_not_writable: errorExample("A location not assigned to this connection as writable", {
        code: "location_not_writable",
        message: `location ${ids.location} is not assigned to this connection as writable`,
        details: { location_id: ids.location }
      }),
      ...stockNotEnabled
    },
    409: {
      revision_conflict: errorExample("revision is not the balance's current revision", {
        code: "revision_conflict",
        message: `the balance of stock card ${ids.stockCard} at location ${ids.location} is at revision 2, not 1`,
        details: { current_revision: 2, expected_revision: 1 }
      }),
      stock_below_reserved: errorExample("Physical stock below the reserved quantity (a reservation conflict)", {
        code: "stock_below_reserved",
        message: "physical stock 1 would be below the reserved quantity 2; read the balance again",
        details: { location_id: ids.location, reserved: "2", physical: "5", requested_physical: "1" }
      }),
      event_id_reused: errorExample("The event_id was used for another write", {
        code: "event_id_reused",
        message: `event_id ${ids.stockEvent} was already used for a different stock write; use a new event_id for a new event`,
        details: { event_id: ids.stockEvent }
      }),
      ...idempotencyConflicts
    },
    422: {
      stock_below_zero: issuesExample(
        "Taking out more than there is",
        "stock_below_zero",
        "taking 12 out of 9 would leave -3",
        [{ path: "$.quantity", message: "taking 12 out of 9 would leave -3" }]
      ),
      quantity_not_whole: issuesExample(
        "A fraction for a product counted in pieces",
        "quantity_not_whole",
        "$.quantity: 2.5 is not a whole number; this product is counted in pieces",
        [{ path: "$.quantity", message: "2.5 is not a whole number; this product is counted in pieces" }]
      ),
      unknown_location: issuesExample(
        "A location of no company location",
        "unknown_location",
        `$.location_id: no location ${ids.unknown} in this company`,
        [{ path: "$.location_id", message: `no location ${ids.unknown} in this company` }]
      ),
      validation_failed: issuesExample(
        "The body does not match StockWrite",
        "validation_failed",
        "the body is not valid",
        [
          { path: "$.note", message: "is required" },
          { path: "$.quantity", message: "must be a decimal string with up to 9 integer digits and up to 3 decimals" }
        ]
      ),
      ...idempotencyKeyInvalid
    }
  }
}
