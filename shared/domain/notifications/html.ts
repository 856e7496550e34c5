/** Text into HTML: every value that reaches the HTML part goes through `escapeHtml`. */

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => entities[c] ?? c)
}

/** One paragraph a block, line breaks kept (a contact message's own lines). */
export function htmlDocument(lang: string, subject: string, paragraphs: readonly string[]): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\r?\n/g, '<br>')}</p>`).join('\n')
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(lang)}">`,
    `<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    `<body>\n${body}\n</body>`,
    '</html>',
  ].join('\n')
}

/**
 * Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): in a subject
 * they reorder what the reader sees ("…fdp.exe" shown as "…exe.pdf"), and a mail client shows the
 * subject without the page's own direction. Decision 0027.
 */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g

/**
 * A subject is one header line: no line breaks, control characters (C0, DEL, C1, line and
 * paragraph separators) or bidirectional controls, whatever the data holds.
 */
export function subjectLine(value: string): string {
  return value
    .replace(BIDI_CONTROLS, '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}
