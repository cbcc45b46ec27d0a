/**
 * Where the device keeps the terminal's POS access key: localStorage, per terminal, so it is entered once on the
 * counter's tablet and survives a reload (docs/decisions.md §30.15 writes down the trade-off: anyone with the
 * unlocked device can ring up sales, which is what the device is for; the key can do nothing else, and the
 * dashboard revokes it).
 */
const storageKey = (posId: string) => `paygate.pos.${posId}`;

export function readKey(posId: string): string | null {
  try {
    return localStorage.getItem(storageKey(posId));
  } catch {
    return null;
  }
}

export function storeKey(posId: string, key: string): void {
  try {
    localStorage.setItem(storageKey(posId), key);
  } catch {
    // A browser without storage keeps the key for this page only.
  }
}

export function forgetKey(posId: string): void {
  try {
    localStorage.removeItem(storageKey(posId));
  } catch {
    // Nothing stored.
  }
}
