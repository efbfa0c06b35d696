/**
 * The panel's two assets, served from `<base>/assets/`: its style sheet and the one script it runs (the
 * copy button of a new key's secret). Pages work without the script; the button is shown by it.
 */
import { createHash } from "node:crypto"

/** Colours keep at least 4.5:1 contrast; the layout is one column up to 40rem, so a 375 px phone reads it. */
const styles = `
*,*::before,*::after{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1a1a1a;background:#fff}
body{margin:0}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;border-bottom:1px solid #ccc;background:#f4f6f8}
header.top .brand{font-weight:700;color:#1a1a1a;text-decoration:none}
header.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
header.top form{display:inline}
header.top div{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center}
main{max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:2rem 0 .75rem;overflow-wrap:anywhere}
p,li,td,th,dd{overflow-wrap:anywhere}
.crumbs{font-size:.95rem;margin:0 0 .5rem}
.crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0}
.crumbs li+li::before{content:"/";margin-right:.25rem;color:#555}
form.card,section.card{border:1px solid #ccc;border-radius:6px;padding:1rem;margin:0 0 1rem;max-width:40rem}
.field{margin:0 0 1rem}
.field label,.field legend{display:block;font-weight:600;margin-bottom:.25rem}
.field .hint{display:block;font-size:.9rem;color:#4a4a4a}
input[type=text],input[type=email],input[type=password],input[type=number],select{width:100%;max-width:30rem;font:inherit;padding:.5rem;border:1px solid #6b6b6b;border-radius:4px}
fieldset{border:0;margin:0;padding:0}
.checks label{display:flex;gap:.5rem;align-items:center;font-weight:400}
.error{color:#b00020;font-weight:600;display:block}
[aria-invalid=true]{border-color:#b00020;border-width:2px}
.notice{border-left:4px solid #0b57d0;background:#eef3fd;padding:.75rem 1rem;margin:0 0 1rem}
.problem{border-left:4px solid #b00020;background:#fdeeee;padding:.75rem 1rem;margin:0 0 1rem}
button{font:inherit;padding:.5rem 1rem;border-radius:4px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b57d0}
button.danger{background:#b00020;border-color:#b00020}
button.link{background:none;border:0;color:#0b57d0;text-decoration:underline;padding:0}
.table{overflow-x:auto;margin:0 0 1rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
td form{display:inline}
code,.secret{font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.secret{display:block;background:#f4f6f8;border:1px solid #ccc;padding:.75rem;margin:.5rem 0}
dl.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.25rem 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
[hidden]{display:none!important}
@media (max-width:30rem){dl.facts{grid-template-columns:1fr}h1{font-size:1.35rem}}
`

/** Shows each copy button and copies the text of the element its `data-copy` names. */
const copyScript = `"use strict";
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var source = document.getElementById(button.getAttribute("data-copy"));
  var status = document.getElementById(button.getAttribute("data-status"));
  if (!source || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(source.textContent.trim()).then(
      function () { if (status) status.textContent = "Copied to the clipboard."; },
      function () { if (status) status.textContent = "Could not copy: select the text and copy it."; }
    );
  });
});
`

/** One asset: its path under the panel's base (named by its content, so it can be cached for good), type and body. */
export interface Asset {
  readonly path: string
  readonly contentType: string
  readonly body: string
}

const named = (stem: string, extension: string, contentType: string, body: string): Asset => ({
  path: `assets/${stem}.${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${extension}`,
  contentType,
  body
})

export const stylesheet: Asset = named("panel", "css", "text/css; charset=utf-8", styles)
export const script: Asset = named("copy", "js", "text/javascript; charset=utf-8", copyScript)
