import assert from 'node:assert/strict';
import { generateKeyPairSigner } from '@solana/kit';
import { chainReadinessChecks, FEE_PAYER_MIN_LAMPORTS, type Chains } from '../../server/src/chains/index.js';
import { connectSolanaChain } from '../../server/src/chains/solana/client.js';
import { sharedChains } from '../helpers/chain.js';
import { testRuntime } from '../helpers/runtime.js';
import { openDatabase } from '@paygate/server';

describe('chains: the Solana fee payer in /readyz and the metrics', () => {
  it('passes the readiness check while the fee payer can pay, and fails it naming the chain when it cannot', async () => {
    const chains = await sharedChains();
    const solana = chains.solana[0]!;
    const check = chainReadinessChecks(chains).find((c) => c.name === `chain:${solana.config.caip2}`);
    assert.ok(check, 'one check per Solana chain');
    await check.check(new AbortController().signal);

    // The same chain, paid for by an empty account.
    const broke = await connectSolanaChain(solana.config, undefined, await generateKeyPairSigner());
    const brokeChains: Chains = { ...chains, evm: [], solana: [broke] };
    const [brokeCheck] = chainReadinessChecks(brokeChains);
    await assert.rejects(brokeCheck!.check(new AbortController().signal), (err: Error) => {
      assert.match(err.message, new RegExp(`^${solana.config.caip2}: the fee payer \\w+ holds 0 lamports`));
      return true;
    });
    assert.ok(FEE_PAYER_MIN_LAMPORTS > 0n);
  });

  it('exports the fee payer balance per chain as a gauge', async () => {
    const chains = await sharedChains();
    const db = openDatabase('sqlite::memory:');
    const runtime = await testRuntime({ db });
    try {
      // testRuntime starts no chains; a runtime given the shared ones reports their fee payers.
      const withChains = await (
        await import('@paygate/server')
      ).createRuntime({
        config: runtime.config,
        db,
        logger: runtime.logger,
        chains,
      });
      const text = await withChains.metrics.registry.metrics();
      const solana = chains.solana[0]!.config.caip2;
      const line = text.split('\n').find((l) => l.startsWith(`paygate_fee_payer_balance_lamports{chain="${solana}"}`));
      assert.ok(
        line,
        text
          .split('\n')
          .filter((l) => l.includes('fee_payer'))
          .join('\n'),
      );
      assert.ok(Number(line.split(' ')[1]) >= Number(FEE_PAYER_MIN_LAMPORTS));
      await withChains.close();
    } finally {
      await runtime.close();
      await db.close();
    }
  });
});
