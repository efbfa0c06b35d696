import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { median } from "./load.js"
import type { ScenarioContext } from "./mainServer.js"
import { pairedRounds } from "./measuring.js"
import { keysPerCompany, quick } from "./options.js"
import { rssMb, runNode, serverArgs, sleep, start } from "./processes.js"
import { warnings } from "./report.js"
import { runId } from "./requests.js"
import type { Row } from "./row.js"
import { createTenants } from "./setup.js"

/**
 * A 4000x3000 (12 MP) photo-like JPEG: smooth gradients and waves with some grain, so that it neither
 * compresses to nothing nor to noise. `quality` sets its size (a 10 MB upload needs a high one).
 */
const photo = async (file: string, quality: number, grain: number) => {
  const { default: sharp } = await import("sharp")
  const width = 4000
  const height = 3000
  const pixels = Buffer.alloc(width * height * 3)
  let seed = 1
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      const noise = ((seed >> 16) % (2 * grain + 1)) - grain
      const i = (y * width + x) * 3
      pixels[i] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(x / 150) * Math.cos(y / 210) + noise))
      pixels[i + 1] = Math.max(0, Math.min(255, (x * 255) / width + noise))
      pixels[i + 2] = Math.max(0, Math.min(255, (y * 255) / height + noise))
    }
  }
  await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality })
    .toFile(file)
  return readFileSync(file).byteLength
}

/**
 * POST /media of `file` made unique with a JPEG comment segment after the start marker: the server
 * reuses the processed file of an identical source, which would measure nothing.
 */
const uploadMedia = async (url: string, token: string, file: string, externalId: string) => {
  const jpeg = readFileSync(file)
  const comment = Buffer.from(externalId)
  const segment = Buffer.concat([
    Buffer.from([0xff, 0xfe, (comment.length + 2) >> 8, (comment.length + 2) & 0xff]),
    comment
  ])
  const unique = Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)])
  const form = new FormData()
  form.append("external_id", externalId)
  form.append("name", externalId)
  form.append("purpose", "catalog")
  form.append("file", new Blob([unique], { type: "image/jpeg" }), "photo.jpg")
  const response = await fetch(`${url}/api/v1/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "idempotency-key": `bench-${randomUUID()}` },
    body: form
  })
  const body = await response.text()
  if (response.status !== 202 && response.status !== 200 && response.status !== 201)
    throw new Error(`POST /media: ${response.status} ${body}`)
}

const mediaScopes = ["catalog:read", "catalog:write", "media:read", "media:write"]

/**
 * Scenario 5, on its own server (one company, one job worker): `count` 12 MP JPEGs uploaded through
 * POST /media one after the other, time per image from the first POST until the last job's end (the
 * worker's first poll aside, uploads overlap processing), against the same number of bare sharp
 * pipelines with the server's options in a child process; alternating rounds. Then the RSS of a server
 * without workers while 10 MB uploads arrive 8 at a time: uploads stream to staging files, so RSS should
 * stay near its idle level plus the sockets' buffers, not grow with the bytes in flight.
 */
export const scenarioMedia = async (context: ScenarioContext): Promise<Array<Row>> => {
  const dir = join(context.work, "media")
  mkdirSync(dir)
  const source = join(dir, "photo-12mp.jpg")
  const sourceBytes = await photo(source, 90, 8)
  const uploadBatches = quick ? 2 : 4
  // One company for the processing rounds, one per upload batch (each connection may stage 100 MB).
  const [tenant, ...uploaders] = await createTenants(join(dir, "data"), 1 + uploadBatches, keysPerCompany, mediaScopes)
  // Polling every 50 ms rather than 250: the idle worker's first look would otherwise count in the figure.
  const server = await start("server (media)", serverArgs(undefined), {
    DATA_DIR: join(dir, "data"),
    JOB_POLL_MILLISECONDS: "50"
  })
  const db = new Database(join(dir, "data", "catalog-sync.db"), { readonly: true })
  const count = quick ? 4 : 8
  const unfinished = db.prepare("SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')")
  const failed = db.prepare("SELECT count(*) AS n FROM jobs WHERE kind = 'media' AND state <> 'completed'")
  let uploads = 0
  const serverRound = async (n: number) => {
    const started = performance.now()
    for (let i = 0; i < n; i++)
      await uploadMedia(
        server.url,
        tenant!.tokens[uploads % tenant!.tokens.length]!,
        source,
        `photo-${runId}-${uploads++}`
      )
    while ((unfinished.get() as { n: number }).n > 0) await sleep(10)
    return (performance.now() - started) / n
  }
  const sharpRound = async (n: number) =>
    (JSON.parse(await runNode(["bench/dist/servers.js", "raw-media", source, String(n)])) as { ms: number }).ms / n
  const rows: Array<Row> = []
  try {
    await serverRound(1)
    await sharpRound(1)
    const perImage = await pairedRounds(
      "media",
      "ms/image",
      quick ? 2 : 3,
      () => serverRound(count),
      () => sharpRound(count)
    )
    const bad = (failed.get() as { n: number }).n
    if (bad > 0) warnings.push(`media: ${bad} jobs did not complete`)
    const ratio = median(perImage.server.map((s, i) => s / perImage.baseline[i]!))
    rows.push({
      scenario: "5 media",
      measure: `12 MP JPEG (${(sourceBytes / 2 ** 20).toFixed(1)} MB) -> WebP 1500 px, POST /media + job`,
      value: median(perImage.server),
      unit: "ms/image",
      baseline: "bare sharp, same options",
      baselineValue: median(perImage.baseline),
      ratio,
      target: "<= 1.10x",
      met: ratio <= 1.1,
      note: `${count} uploads in turn, first POST to last job's end; 1 worker`,
      rounds: { server: perImage.server, baseline: perImage.baseline }
    })
  } finally {
    db.close()
    await server.stop()
  }

  // RSS during 10 MB uploads, on a server that does not process them (no worker), so only the uploads count.
  const big = join(dir, "photo-10mb.jpg")
  let bigBytes = await photo(big, 100, 40)
  if (bigBytes > 10 * 2 ** 20) bigBytes = await photo(big, 97, 40)
  const uploadsOnly = await start("server (uploads)", serverArgs(undefined), {
    DATA_DIR: join(dir, "data"),
    JOB_WORKERS: "0"
  })
  try {
    const idle = rssMb(uploadsOnly)
    let peak = idle
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(uploadsOnly))
    }, 20)
    const concurrent = 8
    const batches = uploadBatches
    const peaks: Array<number> = []
    for (let b = 0; b < batches; b++) {
      await Promise.all(
        Array.from({ length: concurrent }, (_, i) =>
          uploadMedia(uploadsOnly.url, uploaders[b]!.tokens[i % keysPerCompany]!, big, `big-${runId}-${b}-${i}`)
        )
      )
      peaks.push(peak)
    }
    clearInterval(sampler)
    const inFlight = (concurrent * bigBytes) / 2 ** 20
    // Bounded: the later batches (the same bytes again) add nothing to the first batch's peak.
    const growth = (peaks[peaks.length - 1]! - peaks[0]!) / peaks[0]!
    rows.push({
      scenario: "5 media",
      measure: `RSS during ${batches} batches of ${concurrent} concurrent ${(bigBytes / 2 ** 20).toFixed(1)} MB uploads (no worker)`,
      value: growth * 100,
      unit: "% RSS growth batch 1->last",
      target: "< 10 % (no growth with uploaded bytes)",
      met: growth < 0.1,
      note: `RSS MB idle ${idle}, peak after each batch ${peaks.join(" -> ")}; ${Math.round(inFlight)} MB in flight per batch, ${Math.round(inFlight * batches)} MB uploaded`
    })
  } finally {
    await uploadsOnly.stop()
  }
  return rows
}
