/** The table of every endpoint (method, path, what it does, scopes), on the home page and the reference page. */
import { escapeHtml } from "./PageLayout.js"
import { type ApiDocument, operationsOf, scopesOf } from "./ReferenceDocument.js"

/** Scopes texts that several rows share and that are long: shown once, as notes. */
const scopeNotes = (texts: ReadonlyArray<string>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1)
  const notes = new Map<string, number>()
  for (const [text, count] of counts) if (count > 1 && text.length > 120) notes.set(text, notes.size + 1)
  return notes
}

/**
 * The endpoint table of `doc`, each path linked to its section of the interactive reference at
 * `referencePage` (`""`: the page the table is on); `inline` renders the scopes' markdown.
 */
export const endpointTable = (doc: ApiDocument, inline: (markdown: string) => string) => {
  const operations = operationsOf(doc).map((op) => ({ ...op, scopes: scopesOf(op.method, op.path) }))
  const notes = scopeNotes(operations.map((op) => op.scopes))
  return (referencePage: string) => {
    const rows = operations
      .map((op) => {
        const note = notes.get(op.scopes)
        const scopes = note === undefined ? inline(op.scopes) : `See <a href="#scopes-${note}">scopes note ${note}</a>.`
        return `<tr><td class="method">${op.method}</td><td><a href="${referencePage}#tag/${encodeURIComponent(op.tag)}/${op.method.toLowerCase()}${escapeHtml(op.path)}"><code class="endpoint-path">${escapeHtml(op.path)}</code></a></td><td>${escapeHtml(op.summary)}</td><td>${scopes}</td></tr>`
      })
      .join("\n")
    const noteList = [...notes]
      .map(([text, note]) => `<p id="scopes-${note}"><strong>Scopes note ${note}.</strong> ${inline(text)}</p>`)
      .join("\n")
    return `<table id="endpoints"><thead><tr><th>method</th><th>path</th><th>what</th><th>scopes</th></tr></thead><tbody>
${rows}
</tbody></table>
${noteList}`
  }
}
