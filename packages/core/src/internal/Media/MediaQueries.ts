import { Effect, Option } from "effect"
import { CurrentPrincipal, type Principal } from "../../Auth/Principal.js"
import { Mappings } from "../../Catalog/Mappings.js"
import { RecordNotFound } from "../../Shared/Errors.js"
import type { RecordId } from "../../Shared/Ids.js"
import { type MediaRecord, render, type StoredMedia } from "../../Media/Media.js"
import { mediaScope, requireScope } from "./MediaAccess.js"
import { MediaRepository } from "../../Media/MediaRepository.js"
import { MediaStorage } from "../../Media/MediaStorage.js"

/** A page of media. */
export interface MediaPage {
  readonly records: ReadonlyArray<MediaRecord>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/** The media reads: pages (GET /media), one item (GET /media/{id}) and its processed file (`/content`). */
export const makeQueries = Effect.gen(function* () {
  const repository = yield* MediaRepository
  const storage = yield* MediaStorage
  const mappings = yield* Mappings

  const externalIds = (principal: Principal, records: ReadonlyArray<StoredMedia>) =>
    mappings.externalIdsOf(
      mediaScope(principal.company.id, principal.connectionId),
      records.map((m) => m.id)
    )

  /** GET /media: a cursor page in id order; `external_id` narrows to the caller's mapping. */
  const list = (params: {
    readonly limit: number
    readonly cursor?: string | undefined
    readonly external_id?: string | undefined
  }) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      yield* requireScope(principal, "media:read")
      let only: ReadonlyArray<RecordId> | undefined
      if (params.external_id !== undefined) {
        const mapped = yield* mappings.find(
          mediaScope(principal.company.id, principal.connectionId),
          params.external_id
        )
        only = Option.isSome(mapped) ? [mapped.value] : []
      }
      const rows =
        only !== undefined && only.length === 0
          ? []
          : yield* repository.list({
              companyId: principal.company.id,
              cursor: params.cursor,
              ids: only,
              limit: params.limit + 1
            })
      const page = rows.slice(0, params.limit)
      const external = yield* externalIds(principal, page)
      const hasMore = rows.length > params.limit
      return {
        records: page.map((m) => render(m, external.get(m.id) ?? null)),
        next_cursor: hasMore ? page[page.length - 1]!.id : null,
        has_more: hasMore
      } satisfies MediaPage
    })

  const find = (principal: Principal, id: string) =>
    Effect.flatMap(repository.get(principal.company.id, id as RecordId), (found) =>
      Option.match(found, {
        onNone: () => Effect.fail(new RecordNotFound({ resource: "media", message: `no media ${id} in this company` })),
        onSome: Effect.succeed
      })
    )

  /** GET /media/{id}. */
  const get = (id: string) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      yield* requireScope(principal, "media:read")
      const media = yield* find(principal, id)
      const external = yield* externalIds(principal, [media])
      return render(media, external.get(media.id) ?? null)
    })

  /** GET /media/{id}/content: the processed file of a completed item, streamed. */
  const content = (id: string) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      yield* requireScope(principal, "media:read")
      const media = yield* find(principal, id)
      if (media.state !== "completed") {
        return yield* new RecordNotFound({
          resource: "media",
          message: `media ${id} is ${media.state}; its content exists once completed`
        })
      }
      const folder = principal.company.storage_slug
      return {
        media,
        stream: storage.read(folder, media.contentKey),
        etag: `"${media.contentKey.replace(/\.webp$/, "")}"`
      }
    })

  return { list, get, content } as const
})
