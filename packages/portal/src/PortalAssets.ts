/** The portal's stylesheet and browser scripts, served as files under assets/ (no inline script needs a nonce). */

export const css = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --accent: #0b57d0; --line: #d1d9e0; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: #fff; }
header.top a { color: var(--accent); text-decoration: none; }
header.top .brand { font-weight: 600; color: var(--fg); }
form.search { position: relative; margin-left: auto; flex: 0 1 22rem; }
form.search input { width: 100%; font: inherit; padding: .35rem .6rem; border: 1px solid var(--line); border-radius: 6px; }
form.search .results { position: absolute; z-index: 1000; top: calc(100% + 4px); right: 0; width: min(34rem, 92vw); max-height: 70vh; overflow-y: auto; margin: 0; padding: .25rem 0; list-style: none; background: #fff; border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 8px 24px rgba(0,0,0,.12); }
form.search .results a { display: block; padding: .45rem .75rem; color: var(--fg); }
form.search .results a:hover, form.search .results a:focus { background: var(--soft); outline: none; }
form.search .results .kind { display: inline-block; min-width: 5.5rem; font-size: .75rem; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
form.search .results .snippet { display: block; font-size: .85rem; color: var(--muted); overflow-wrap: anywhere; }
form.search .results .none { padding: .45rem .75rem; color: var(--muted); }
.layout { display: grid; grid-template-columns: 16rem minmax(0, 1fr); max-width: 80rem; margin: 0 auto; }
nav.guides { padding: 1.5rem 1rem; border-right: 1px solid var(--line); font-size: .95rem; }
nav.guides h2 { font-size: .8rem; text-transform: uppercase; color: var(--muted); margin: 0 0 .5rem; }
nav.guides ul { list-style: none; padding: 0; margin: 0; }
nav.guides li { margin: .3rem 0; }
nav.guides a { color: var(--fg); text-decoration: none; }
nav.guides a[aria-current] { font-weight: 600; color: var(--accent); }
main { padding: 1.5rem 2.5rem; min-width: 0; overflow-wrap: break-word; }
main table { border-collapse: collapse; margin: 1rem 0; font-size: .92rem; display: block; overflow-x: auto; max-width: 100%; }
main th, main td { border: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
main tr:target { background: #fff8c5; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
code { overflow-wrap: anywhere; }
pre { background: var(--soft); padding: .8rem 1rem; overflow-x: auto; border-radius: 6px; }
pre code, td code { overflow-wrap: normal; }
.method { font-weight: 700; font-family: ui-monospace, monospace; }
body.reference header.top { position: sticky; top: 0; z-index: 1000; }
.static-reference { max-width: 80rem; margin: 0 auto; }
button.interactive { font: inherit; padding: .4rem .9rem; border: 1px solid var(--accent); border-radius: 6px; background: var(--accent); color: #fff; cursor: pointer; }
button.interactive:disabled { opacity: .6; cursor: progress; }
/* Phones: one column, the guide list after the page it belongs to, the search on its own line. */
@media (max-width: 48rem) {
  header.top { padding: .6rem 1rem; gap: .4rem 1rem; }
  form.search { flex: 1 1 100%; margin-left: 0; }
  form.search .results { left: 0; right: auto; width: 100%; }
  .layout { display: flex; flex-direction: column; }
  nav.guides { order: 2; border-right: 0; border-top: 1px solid var(--line); padding: 1rem; }
  main { padding: 1rem; }
  main h1 { font-size: 1.6rem; line-height: 1.25; }
  /* The endpoint table as a list: method and path, then what it does and its scopes. */
  #endpoints thead { display: none; }
  #endpoints, #endpoints tbody, #endpoints tr { display: block; }
  #endpoints tr { border-top: 1px solid var(--line); padding: .5rem 0; }
  #endpoints td { display: inline; border: 0; padding: 0 .4rem 0 0; }
  #endpoints td:nth-child(n+3) { display: block; padding: .15rem 0 0; }
  #endpoints td:nth-child(4) { color: var(--muted); font-size: .85rem; }
  body.reference header.top { position: static; }
  /* A few of Scalar's code tabs reach a little past the edge; they scroll inside their own boxes. */
  #reference { overflow-x: clip; }
}
`

/**
 * The search box of every page: loads the index on first use and lists the best matches (every word of
 * the query must occur; title matches first). `/` focuses it; Enter opens the first result.
 */
export const searchScript = `(() => {
  const form = document.querySelector("form.search");
  if (!form) return;
  const input = form.querySelector("input");
  const list = form.querySelector(".results");
  const root = form.dataset.root || "";
  const indexPath = form.dataset.index || "";
  const labels = { guide: "Guide", error: "Error code", operation: "Endpoint" };
  let index;
  const load = () => (index = index || fetch(root + indexPath).then((r) => r.json()));
  const score = (entry, terms) => {
    const title = entry.title.toLowerCase();
    const text = entry.text.toLowerCase();
    let total = 0;
    for (const term of terms) {
      if (title.includes(term)) total += 3;
      else if (text.includes(term)) total += 1;
      else return 0;
    }
    if (entry.kind === "error" && title.startsWith(terms[0] + " ")) total += 10;
    return total;
  };
  const snippet = (text, term) => {
    const at = text.toLowerCase().indexOf(term);
    if (at === -1) return text.slice(0, 140);
    const start = Math.max(0, at - 50);
    return (start > 0 ? "… " : "") + text.slice(start, start + 160) + (start + 160 < text.length ? " …" : "");
  };
  const item = (entry, term) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = root + entry.url;
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = labels[entry.kind] || entry.kind;
    const title = document.createElement("strong");
    title.textContent = entry.title;
    const more = document.createElement("span");
    more.className = "snippet";
    more.textContent = snippet(entry.text, term);
    a.append(kind, title, more);
    li.append(a);
    return li;
  };
  let generation = 0;
  const show = async () => {
    const query = input.value.trim().toLowerCase();
    const mine = ++generation;
    if (query.length < 2) {
      list.hidden = true;
      list.replaceChildren();
      return;
    }
    const terms = query.split(/\\s+/);
    const entries = await load();
    if (mine !== generation) return;
    const hits = entries
      .map((entry) => [score(entry, terms), entry])
      .filter(([s]) => s > 0)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 15);
    if (hits.length === 0) {
      const none = document.createElement("li");
      none.className = "none";
      none.textContent = "No results";
      list.replaceChildren(none);
    } else list.replaceChildren(...hits.map(([, entry]) => item(entry, terms[0])));
    list.hidden = false;
  };
  input.addEventListener("focus", load);
  // A result on the same page (an operation of the reference) changes the hash only: the list closes.
  addEventListener("hashchange", () => (list.hidden = true));
  input.addEventListener("input", show);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const first = list.querySelector("a");
    if (first) location.href = first.href;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") list.hidden = true;
    if (event.key === "/" && (document.activeElement === document.body || document.activeElement === null)) {
      event.preventDefault();
      input.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (!form.contains(event.target)) list.hidden = true;
  });
})();
`
