/**
 * The screening list (PAYGATE_SCREENING_FILE): accounts that may not pay. One CAIP-10 account or bare address per
 * line; `#` starts a comment. EVM addresses match case-insensitively on every chain (a sanctioned key is sanctioned
 * everywhere); other addresses match exactly. The file is read at start: a change needs a restart (or a rolling
 * one), which keeps every process of a deployment on the same list.
 */
import { readFileSync } from 'node:fs';

export interface ScreeningList {
  size: number;
  matches(caip10: string): boolean;
}

function addressPart(entry: string): string {
  const address = entry.slice(entry.lastIndexOf(':') + 1);
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

export function screeningListOf(text: string): ScreeningList {
  const entries = new Set(
    text
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line.length > 0)
      .map(addressPart),
  );
  return { size: entries.size, matches: (caip10) => entries.has(addressPart(caip10)) };
}

export function loadScreeningList(file: string | null): ScreeningList {
  if (!file) return screeningListOf('');
  try {
    return screeningListOf(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`PAYGATE_SCREENING_FILE (${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}
