/** The Solana chains' part of /readyz and of the metrics: the genesis served, and the fee payer's balance. */
import { ReadinessFailure, type ReadinessCheck } from '../../observability/readiness.js';
import { shortError } from '../rpcErrors.js';
import type { SolanaChain } from './client.js';

/** Below this the fee payer cannot pay for many more payments: /readyz fails so an operator tops it up in time. */
export const FEE_PAYER_MIN_LAMPORTS = 10_000_000n;

/** The Solana endpoint serves the configured genesis, and the fee payer can still pay fees. */
export function solanaReadinessCheck(chain: SolanaChain): ReadinessCheck {
  const { config, rpc, feePayer } = chain;
  return {
    name: `chain:${config.caip2}`,
    degradable: true,
    check: async () => {
      let genesis: string;
      let lamports: bigint;
      try {
        genesis = await rpc.getGenesisHash().send();
        lamports = (await rpc.getBalance(feePayer.address, { commitment: config.commitment }).send()).value;
      } catch (err) {
        throw new Error(`${config.caip2}: ${shortError(err)}`);
      }
      if (`solana:${genesis.slice(0, 32)}` !== config.caip2) {
        throw new ReadinessFailure(`${config.caip2}: the RPC endpoint serves genesis ${genesis}`);
      }
      if (lamports < FEE_PAYER_MIN_LAMPORTS) {
        // Stays failing, as before: nothing recovers it by itself, and every Solana payment would fail meanwhile.
        throw new ReadinessFailure(
          `${config.caip2}: the fee payer ${feePayer.address} holds ${lamports} lamports; top it up`,
        );
      }
    },
  };
}

/** The fee payer's balance per Solana chain, for the metrics. */
export async function feePayerBalances(chains: {
  solana: SolanaChain[];
}): Promise<{ chain: string; lamports: bigint }[]> {
  const read = await Promise.allSettled(
    chains.solana.map(async ({ config, rpc, feePayer }) => ({
      chain: config.caip2,
      lamports: (await rpc.getBalance(feePayer.address, { commitment: config.commitment }).send()).value,
    })),
  );
  return read.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
}
