import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { chromiumAvailable, findChromium } from "./Chromium.js"
import { call, TestServer, TestServerLive } from "./TestServer.js"

/** Screenshots of the phone layout land here (build/ is not committed) for a person to look at. */
const shots = fileURLToPath(new URL("../../../build/portal-screenshots/", import.meta.url))

/** Opens the "Test Request" client of the operation at `anchor`, pastes the key, sends the example, waits for the answer and closes the client. */
const testRequest = async (page: Page, url: string, anchor: string, token: string) => {
  await page.goto(`${url}/docs/reference.html#${anchor}`)
  // Scalar prefixes the operation's section id with the document's slug.
  const section = page.locator(`section[id$="${anchor}"]`).first()
  await section.waitFor({ timeout: 20_000 })
  await section.getByRole("button", { name: "Test Request" }).first().click()
  const send = page.getByRole("button", { name: /Send Request/ })
  await send.waitFor({ timeout: 10_000 })
  await page.getByLabel("Bearer Token").or(page.locator("input[id^=scalar-client]")).first().fill(token)
  const answered = page.waitForResponse(
    (response) => response.request().method() !== "GET" && response.url().includes("/api/v1/")
  )
  await send.click()
  await answered
  await page.getByRole("button", { name: "Close Client" }).click()
}

/** The page is no wider than the viewport: nothing to scroll sideways. */
const scrollWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth")

// Without a Chromium the suite is skipped with one line, but never under CI=true: there it fails instead.
const skip =
  !chromiumAvailable() && process.env.CI !== "true" && process.env.CI !== "1"
    ? "portal browser tests SKIPPED: no Chromium (apt-get install chromium, or set CHROMIUM_PATH; npm install brings one on Linux x64)"
    : undefined
if (skip !== undefined) console.warn(`\n*** ${skip} ***\n`)

/** Headless Chromium (the machine's, else npm's: ./Chromium.ts), in a fresh profile, with nothing phoning home. */
const launch = Effect.acquireRelease(
  Effect.promise(async () => {
    const found = await findChromium()
    if (found === undefined)
      throw new Error("no Chromium: apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome")
    const profile = mkdtempSync(join(tmpdir(), "catalog-sync-chromium-"))
    // A new, empty profile: launchPersistentContext passes it as --user-data-dir.
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: found.executablePath,
      env: { ...process.env, ...found.env },
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    return { browser, profile }
  }),
  ({ browser, profile }) =>
    Effect.promise(async () => {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    })
)

/** A page whose Content-Security-Policy must never refuse anything the portal does. */
const withPage = <A>(
  browser: BrowserContext,
  f: (page: Awaited<ReturnType<BrowserContext["newPage"]>>) => Promise<A>
) =>
  Effect.acquireUseRelease(
    Effect.promise(() => browser.newPage()),
    (page) =>
      Effect.promise(async () => {
        const refused: Array<string> = []
        page.on("console", (message) => {
          if (/Content Security Policy/i.test(message.text())) refused.push(message.text())
        })
        const result = await f(page)
        expect(refused).toEqual([])
        return result
      }),
    (page) => Effect.promise(() => page.close())
  )

describe.skipIf(skip !== undefined)("portal", () => {
  layer(TestServerLive, { excludeTestServices: true, timeout: 60_000 })("developer portal in a real browser", (it) => {
    it.effect(
      "shows every endpoint, opens an operation and follows a guide link",
      () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const spec = yield* Effect.promise(() =>
            fetch(`${url}/docs/openapi.json`).then((r) => r.json() as Promise<any>)
          )
          const paths = Object.keys(spec.paths)
          expect(paths).toContain("/api/v1/products/{id}")
          const { browser } = yield* launch
          const offsite: Array<string> = []

          yield* withPage(browser, async (page) => {
            // The portal must work offline: any request that leaves the server is a failure.
            page.on("request", (request) => {
              if (
                !request.url().startsWith(url) &&
                !request.url().startsWith("data:") &&
                !request.url().startsWith("blob:")
              )
                offsite.push(request.url())
            })
            const response = await page.goto(`${url}/docs`)
            expect(response?.status()).toBe(200)
            expect(page.url()).toBe(`${url}/docs/`)
            const listed = await page.locator("#endpoints .endpoint-path").allTextContents()
            expect(new Set(listed)).toEqual(new Set(paths))

            // The reference (Scalar, rendered in the browser) lists every endpoint path in its tag overviews.
            await page.getByRole("link", { name: "Open the API reference" }).click()
            await page.waitForURL(/reference\.html/)
            await page.getByText("/api/v1/products/{id}").first().waitFor({ timeout: 20_000 })
            const overview = await page.locator("body").innerText()
            for (const path of paths) expect(overview).toContain(path)

            // Open one operation from the endpoint table: Scalar renders it, with scopes, body and error codes.
            await page.goto(`${url}/docs/`)
            await page.locator("#endpoints tr", { hasText: "Archive a product" }).getByRole("link").click()
            await page.waitForURL(/reference\.html#tag\/products\/delete\/api\/v1\/products\//)
            await page.getByText("Scopes: catalog:write").first().waitFor({ timeout: 20_000 })
            const text = await page.locator("body").innerText()
            expect(text).toContain("revision_conflict")

            await page.goto(`${url}/docs/`)
            await page.locator("nav.guides").getByRole("link", { name: "Error codes" }).click()
            await page.waitForURL(/guides\/errors\.html/)
            expect(await page.locator("h1").first().innerText()).toBe("Error codes")
          })
          expect(offsite).toEqual([])
        }),
      // The suite's first browser start: 30-80 s on a cold, busy machine.
      { timeout: 120_000 }
    )

    it.effect("GET / leads to the portal", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const root = yield* Effect.promise(() => fetch(`${url}/`, { redirect: "manual" }))
        expect([root.status, root.headers.get("location")]).toEqual([302, "/docs/"])
        const followed = yield* Effect.promise(() => fetch(`${url}/`))
        expect([followed.status, followed.url]).toEqual([200, `${url}/docs/`])
      })
    )

    it.effect(
      "the reference: no hosted-product toolbar, Test Request on POSTs with a pasted key and a fresh Idempotency-Key each, the search, phone width",
      () =>
        Effect.gen(function* () {
          const { url, tenant } = yield* TestServer
          const token = yield* Effect.flatMap(tenant(), (t) => t.key(["catalog:read", "catalog:write"]))
          const { browser } = yield* launch
          const keys: Array<string> = []
          const statuses: Array<number> = []
          mkdirSync(shots, { recursive: true })
          yield* withPage(browser, async (page) => {
            page.on("request", (request) => {
              if (request.method() === "POST" && request.url().includes("/api/v1/"))
                keys.push(request.headers()["idempotency-key"] ?? "")
            })
            page.on("response", (response) => {
              if (response.request().method() === "POST" && response.url().includes("/api/v1/"))
                statuses.push(response.status())
            })
            await testRequest(page, url, "tag/categories/post/api/v1/categories/upsert", token)
            // Scalar shows its toolbar (share, SDK generation, configure) on localhost unless told not to.
            expect(await page.getByRole("button", { name: /Generate SDKs|^Share|Configure/ }).count()).toBe(0)
            // The product's default example references that category: it succeeds only after it.
            await testRequest(page, url, "tag/products/post/api/v1/products/upsert", token)

            const search = page.getByRole("searchbox", { name: "Search the reference and the guides" })
            await search.fill("advisory lock")
            const results = page.locator("form.search .results a")
            await results.first().waitFor()
            expect((await results.allInnerTexts()).some((text) => /^GUIDE/i.test(text))).toBe(true)
            await search.fill("")

            await page.setViewportSize({ width: 390, height: 844 })
            await page.getByRole("heading", { name: "Create or update a product by external_id" }).first().waitFor()
            expect(await scrollWidth(page)).toBe(390)
            writeFileSync(join(shots, "reference-390.png"), await page.screenshot())
          })
          expect(statuses).toEqual([200, 200])
          expect(keys).toHaveLength(2)
          expect(new Set(keys).size).toBe(2)
          for (const key of keys) expect(key).toMatch(/^portal-[0-9a-f]{24}$/)
          const product = yield* call(url, "GET", "/products?external_id=sofa-oslo-3", { token })
          expect(product.body.records.map((r: any) => r.name)).toEqual(["Oslo 3-seat sofa"])
        }),
      { timeout: 120_000 }
    )

    it.effect("one search finds error codes, endpoints and guide text, and leads to them", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { browser } = yield* launch
        yield* withPage(browser, async (page) => {
          await page.goto(`${url}/docs/`)
          const search = page.getByRole("searchbox", { name: "Search the reference and the guides" })
          const results = page.locator("form.search .results a")
          await search.fill("idempotency_key_reused")
          await results.first().waitFor()
          const texts = await results.allInnerTexts()
          expect(texts[0]).toContain("idempotency_key_reused · 409")
          // Endpoints whose examples answer with the code are found too.
          expect(texts.some((text) => text.includes("POST /api/v1/products/upsert"))).toBe(true)
          await results.first().click()
          await page.waitForURL(/guides\/errors\.html#idempotency_key_reused$/)
          expect(await page.locator("tr:target td").first().innerText()).toBe("idempotency_key_reused")

          // Guide text leads to its section.
          await search.fill("advisory lock")
          await results.first().waitFor()
          const guide = results.filter({ hasText: /^GUIDE/i }).first()
          const href = await guide.getAttribute("href")
          expect(href).toMatch(/guides\/[a-z-]+\.html#[a-z0-9_-]+$/)
          await guide.click()
          await page.waitForURL(/#/)
          const anchor = decodeURIComponent(new URL(page.url()).hash.slice(1))
          expect(await page.locator(`[id="${anchor}"]`).count()).toBe(1)
          expect((await page.locator("main").innerText()).toLowerCase()).toContain("advisory lock")

          await search.fill("zzzz-nothing-matches")
          await page.locator("form.search .results .none").waitFor()
        })
      })
    )

    it.effect("guides read well at phone width (390 px): no sideways scrolling, the guide list after the page", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { browser } = yield* launch
        mkdirSync(shots, { recursive: true })
        yield* withPage(browser, async (page) => {
          await page.setViewportSize({ width: 390, height: 844 })
          for (const [name, path] of [
            ["home", "/docs/"],
            ["guide-errors", "/docs/guides/errors.html"],
            ["guide-quickstart", "/docs/guides/quickstart.html"]
          ] as const) {
            await page.goto(`${url}${path}`)
            expect([name, await scrollWidth(page)]).toEqual([name, 390])
            const main = await page.locator("main").boundingBox()
            const nav = await page.locator("nav.guides").boundingBox()
            expect(main!.width).toBeGreaterThan(340)
            expect(nav!.y).toBeGreaterThan(main!.y)
            const search = await page
              .getByRole("searchbox", { name: "Search the reference and the guides" })
              .boundingBox()
            expect(search!.x + search!.width).toBeLessThanOrEqual(390)
            const png = await page.screenshot({ path: join(shots, `${name}-390.png`) })
            expect(png.readUInt32BE(16)).toBe(390)
          }
        })
      })
    )
  })
})
