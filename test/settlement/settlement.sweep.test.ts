/**
 * Sweeps (settlement/sweeps.ts + the executor, settlement/moves.ts, + the EVM mover): two paid deposits are swept to
 * the collection account in one transaction of two EIP-3009 legs, final only at the finalized block, once.
 */
import assert from 'node:assert/strict';
import { parseEventLogs, type Hex } from 'viem';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { receiptOf } from '../helpers/wait.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness } from './collected.js';

describeEachDatabase('settlement.sweep', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  beforeEach(async () => {
    h = await startCollectedHarness(get().db);
  });
  afterEach(async () => {
    await h.close();
  });

  const sweepRow = (id: string) =>
    h.runtime.db.knex('sweeps').where({ id }).first() as Promise<{ state: string; tx_id: string | null }>;

  it('planSweeps + settlement.move: two deposits swept in one transaction, swept in the ledger at finality', async () => {
    const a = await paidDeposit(h, 1_250_000n, 12_500n);
    const b = await paidDeposit(h, 3_000_001n, 30_001n);
    const collection = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'collection' });
    const before = await h.balance(collection);

    const planned = await planSweeps(h.checkout);
    assert.equal(planned.length, 1, 'both deposits in one sweep');
    // The same funds are never planned twice.
    assert.deepEqual(await planSweeps(h.checkout), []);

    const sent = await h.until('the sweep sent', async () => {
      const row = await sweepRow(planned[0]!);
      return row.state === 'sent' && row.tx_id ? row.tx_id : null;
    });
    const receipt = await receiptOf(h.local.clients.public, sent as Hex);
    const uses = parseEventLogs({ abi: eip3009Abi, eventName: 'AuthorizationUsed', logs: receipt.logs });
    assert.deepEqual(uses.map((u) => u.args.authorizer).sort(), [a.address, b.address].sort());
    assert.equal(await h.balance(a.address), 0n);
    assert.equal(await h.balance(b.address), 0n);
    assert.equal((await h.balance(collection)) - before, a.amount + b.amount);

    // Below the finalized block: still sent, nothing in the ledger.
    await h.drain();
    assert.equal((await sweepRow(planned[0]!)).state, 'sent');
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] })).length, 0);

    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await sweepRow(planned[0]!)).state === 'final');
    const swept = await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] });
    assert.deepEqual(
      swept.map((e) => [e.address, e.amount, e.paymentId, e.txId]).sort(),
      [
        [a.address, a.amount, a.paymentId, sent],
        [b.address, b.amount, b.paymentId, sent],
      ].sort(),
    );
    assert.equal((await sweepRow(planned[0]!)).tx_id, sent);
    assert.deepEqual(await planSweeps(h.checkout), []);
  });
});
