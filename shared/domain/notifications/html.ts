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

/** A subject is one header line: no line breaks or control characters, whatever the data holds. */
export function subjectLine(value: string): string {
  return value
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}
