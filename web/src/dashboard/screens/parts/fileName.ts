/** The file name of a `Content-Disposition: attachment; filename="…"` header (plain or RFC 5987 `filename*`). */
export function fileNameOf(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) {
    try {
      return sanitizeFileName(decodeURIComponent(extended[1]!.trim()));
    } catch {
      /* fall through to the plain form */
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/.exec(header);
  const name = plain?.[1] ?? plain?.[2];
  return name ? sanitizeFileName(name) : null;
}

function sanitizeFileName(name: string): string | null {
  const base = Array.from(name.replace(/^.*[\\/]/, ''))
    .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f)
    .join('');
  return base === '' || base === '.' || base === '..' ? null : base;
}
