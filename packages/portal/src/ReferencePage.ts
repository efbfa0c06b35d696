/**
 * The API reference page: the endpoint table as HTML, which is all a first visit downloads, and Scalar's
 * interactive reference (parameters, bodies, responses, examples, Test Request) loaded on demand: 5 MB of
 * JavaScript, over 1 MB even brotli-compressed, so it comes only when the reader asks for it (the button)
 * or for an operation (a link to `#tag/...`, from the table, the search or a bookmark).
 */
import { head, header, type PageAssets } from "./PageLayout.js"

/** Marks the button that loads the interactive reference, and the line that says how loading goes. */
const button = "data-load-interactive-reference"
const status = "data-interactive-reference-status"

/**
 * The page. The button is hidden until reference.js runs, as it is useless without it; the table's paths
 * link to their operations on this page (`#tag/...`), which loads the interactive reference.
 */
export const referencePage = (options: {
  readonly assets: PageAssets
  /** The endpoint table, linked to this page. */
  readonly endpoints: string
  /** The paths of reference.js, of Scalar's bundle and of the OpenAPI document it shows. */
  readonly script: string
  readonly scalar: string
  readonly document: string
}) => `<!doctype html>
<html lang="en">
<head>
${head("API reference", "", options.assets)}
</head>
<body class="reference">
${header("", options.assets)}
<div id="reference"><main class="static-reference" data-static-reference>
<h1>API reference</h1>
<p>Every endpoint and the scopes it needs. The interactive reference shows each one's parameters, bodies, responses, error codes and examples, and sends requests to this server (Test Request); a path opens its operation there.</p>
<p><button type="button" class="interactive" ${button} hidden>Open the interactive reference</button> <span role="status" ${status}></span></p>
${options.endpoints}
</main></div>
<script src="${options.script}" data-scalar="${options.scalar}" data-document="${options.document}" defer></script>
</body>
</html>
`

/**
 * reference.js: loads Scalar and the OpenAPI document (paths in this script's `data-scalar` and
 * `data-document`) when the reader presses the button or goes to an operation (`#tag/...`: a link from
 * another page, a bookmark, or a path of the table or a search result on this page), and mounts the
 * reference in place of the endpoint table. On a page opened at an operation, loading starts after a
 * frame has been painted: running Scalar holds the page for a second or more, and from the browser's
 * cache it would run before the table is ever shown.
 *
 * The hosted product's toolbar (share, SDK generation, configure), its telemetry and its search are off:
 * the portal's search in the header, on every page, finds the endpoints Scalar's would and also error
 * codes and guide sections, and works without Scalar. The portal, not Scalar's defaults, fixes the
 * anchors, `#tag/<tag name>/<lowercase method><path>`, which the endpoint table, the search index and
 * bookmarks link to: Scalar's default lowercases the tag (our tags are camelCase) and, since the version
 * effect 4 ships, writes the method in uppercase. Scalar decodes the hash before matching, so the slugs
 * are the raw names. Every POST and DELETE of "Test Request" gets a fresh Idempotency-Key unless the
 * reader typed one of their own (the documented example is replaced), so trying several writes never
 * collides on one key.
 */
export const referenceScript = `(() => {
  const { scalar: bundle, document: documentPath } = document.currentScript.dataset;
  const button = document.querySelector("[${button}]");
  const status = document.querySelector("[${status}]");
  const reference = document.getElementById("reference");
  const mount = (spec) => {
    const documented = new Set();
    for (const item of Object.values(spec.paths || {}))
      for (const operation of Object.values(item))
        for (const parameter of (operation && operation.parameters) || [])
          if (parameter.in === "header" && parameter.name === "idempotency-key") for (const example of parameter.schema.examples || []) documented.add(example);
    // The button goes with the table: a keyboard reader who pressed it continues in the reference.
    const focused = document.activeElement === button;
    document.querySelector("[data-static-reference]")?.remove();
    if (focused) {
      reference.tabIndex = -1;
      reference.focus({ preventScroll: true });
    }
    const freshKey = () => "portal-" + Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
    Scalar.createApiReference("#reference", {
      content: spec,
      layout: "modern",
      showDeveloperTools: "never",
      generateTagSlug: (tag) => tag.name,
      generateOperationSlug: ({ method, path }) => method.toLowerCase() + path,
      telemetry: false,
      hideClientButton: true,
      hideSearch: true,
      withDefaultFonts: false,
      defaultOpenAllTags: true,
      authentication: { preferredSecurityScheme: "bearer" },
      // The document's server is relative ("/"); requests go to the origin that serves the portal.
      servers: [{ url: location.origin, description: "This server" }],
      // The Request that goes over the wire; onBeforeRequest gets only a copy of it.
      onRequestBuilt: ({ request }) => {
        if (request.method !== "POST" && request.method !== "DELETE") return;
        const key = request.headers.get("idempotency-key");
        if (key === null || key.trim() === "" || documented.has(key)) request.headers.set("idempotency-key", freshKey());
      }
    });
  };
  const runScalar = () =>
    new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = bundle;
      script.addEventListener("load", resolve);
      script.addEventListener("error", reject);
      document.body.append(script);
    });
  const fetchDocument = () =>
    fetch(documentPath).then((response) => {
      if (!response.ok) throw new Error(documentPath + ": " + response.status);
      return response.json();
    });
  let loading;
  const load = () => {
    if (loading) return;
    button.disabled = true;
    status.textContent = "Loading the interactive reference…";
    loading = Promise.all([fetchDocument(), runScalar()]).then(
      ([spec]) => mount(spec),
      () => {
        loading = undefined;
        button.disabled = false;
        status.textContent = "The interactive reference could not be loaded. Try again.";
      }
    );
  };
  const atOperation = () => location.hash.startsWith("#tag/");
  button.hidden = false;
  button.addEventListener("click", load);
  addEventListener("hashchange", () => atOperation() && load());
  // A task queued from an animation frame runs after that frame is painted.
  if (atOperation()) requestAnimationFrame(() => setTimeout(load));
})();
`
