/** Chain configuration fields the EVM and Solana parsers share, kept apart so that neither imports the other. */
import { z } from 'zod';

/** An https page with `{txId}` in it, e.g. `https://basescan.org/tx/{txId}`. */
export const explorerTxUrlSchema = z
  .string()
  .refine((v) => {
    try {
      return new URL(v.replace('{txId}', 'x')).protocol === 'https:' && v.includes('{txId}');
    } catch {
      return false;
    }
  }, 'must be an https URL containing {txId}')
  .nullable()
  .default(null);
