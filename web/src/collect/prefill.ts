/**
 * WalletConnect Pay's convention: `?prefill=<base64 of a JSON object>` with values the wallet already knows. Standard
 * or URL-safe base64, padded or not, and a `+` that a query decoded into a space; anything unreadable is no prefill.
 */
export function decodePrefill(raw: string | null): Record<string, unknown> {
  if (!raw) return {};
  try {
    let b64 = raw.replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    const binary = atob(b64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
