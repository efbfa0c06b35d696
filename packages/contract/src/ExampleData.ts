/**
 * One small catalog that every example of the OpenAPI document describes, so that ids agree across
 * operations: the Oslo sofa of the Nordhem brand, in the Sofas category, with a velvet fabric field, a
 * product image, a stock card and an import job. Ids are uuids as the server makes them (version 7).
 */
export const ids = {
  company: "01a209ac-a2c3-7521-a005-e33f3a2396ab",
  connection: "01a209ac-a2c8-7233-bcf3-3a88caee71b1",
  location: "01a209ac-a2ca-7e6f-9de0-daa5e9dbf599",
  category: "01a209ac-a35f-7b4f-92cc-b20fb19e4d7e",
  collection: "01a209ac-a39d-720e-bcc8-8000e86202f1",
  brand: "01a209ac-a3bb-7708-82fd-52042c7f7cdb",
  type: "01a209ac-a3df-7910-9454-b41b02851283",
  group: "01a209ac-a3f3-71d7-b841-36388f85152e",
  option: "01a209ac-a5df-7c09-b57d-93437cacc991",
  product: "01a209ac-a61a-795b-a198-6d0c07e85c59",
  field: "01a209ac-a61a-7bf2-8198-8382266770c5",
  image: "01a209ac-a46f-79de-87e6-d88f2705c534",
  swatch: "01a209ac-a56e-7a88-9ece-5103e26c5b25",
  mediaJob: "01a209ac-a46f-72c1-ad7d-b40baf968f2d",
  importJob: "01a209ac-a729-79e5-a03e-70d8fa890d05",
  importedCategory: "01a209ac-a743-7718-b702-834425652fc3",
  importedProduct: "01a209ac-a746-77f1-ba14-ac8b30100210",
  stockCard: "01a209ac-a6b0-7f81-98e0-51d1d3a0ac44",
  stockEvent: "5d0c6f0e-3b5a-4f5e-9d7c-1a2b3c4d5e6f",
  unknown: "0b7c3e1a-5f2d-4c8e-9a61-3d2f4b5c6e7f"
} as const

/** Timestamps: created, then updated a little later (ISO-8601 UTC, as records carry them). */
export const at = {
  created: "2025-01-14T09:30:12.688Z",
  updated: "2025-01-14T09:42:51.204Z",
  later: "2025-01-15T07:05:03.917Z"
} as const
