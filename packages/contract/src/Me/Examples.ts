/** Examples of GET /me. */
import type { Schema } from "effect"
import { ids } from "../ExampleData.js"
import { exampleRequestId, type OperationExamples } from "../Examples.js"
import type { PrincipalView } from "./PrincipalView.js"

const principal = {
  company: {
    id: ids.company,
    currency: "EUR",
    main_language: "en",
    languages: ["en", "de", "fr"],
    tax_model: "inclusive",
    tax_rates: ["20.00", "10.00"]
  },
  connection_id: ids.connection,
  key_id: "53aefa9f0b6389645892e75c",
  key_expires_at: "2027-02-21T09:30:00.000Z",
  key_scopes: [
    "catalog:read",
    "catalog:write",
    "prices:read",
    "prices:write",
    "media:read",
    "media:write",
    "stock:read"
  ],
  scopes: ["catalog:read", "catalog:write", "prices:read", "prices:write", "media:read", "media:write"],
  stock_enabled: true
} satisfies Schema.Codec.Encoded<typeof PrincipalView>

export const meExamples: OperationExamples = {
  responses: {
    200: {
      principal: {
        summary:
          "The key's company, connection, expiry, own scopes and effective scopes (stock:read is not granted to the company)",
        value: { request_id: exampleRequestId, principal }
      }
    }
  }
}
