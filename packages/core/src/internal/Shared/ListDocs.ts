/**
 * The title and description the OpenAPI document has always given a bounded list (Effect 3 wrote them
 * for its item-count filters). Put them on a list's last count check only: two titles on one list make
 * Effect 4 write its checks as separate `allOf` members.
 */
export const maxItemsDocs = (limit: number) =>
  ({ title: `maxItems(${limit})`, description: `an array of at most ${limit} item(s)` }) as const

/** `maxItemsDocs` of a least number of items. */
export const minItemsDocs = (least: number) =>
  ({ title: `minItems(${least})`, description: `an array of at least ${least} item(s)` }) as const
