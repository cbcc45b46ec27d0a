/**
 * Reconciliation on the local Solana chain (settlement/reconciliation.ts over the Solana settlement port): the ledger
 * written by detection agrees with the deposit's token account; tokens minted on purpose to the deposit address and
 * to the collection account are differences, reported, and never fail readiness; the deposit's is recorded as an
 * `unwatched_deposit` finding once it stands. SQLite only:
 * reconciliation only reads, and its storage is tested on both databases in settlement.reconcile.
 */
import assert from 'node:assert/strict';
import type { Address } from '@solana/kit';
import { PENDING_MS, failsReadiness, type Difference } from '../../server/src/settlement/reconciliation.js';
import { eventually } from '../helpers/wait.js';
import { ASKED } from './detection.js';
import { startSolanaCollectedHarness, type SolanaCollectedHarness } from './solanaCollected.js';

describe('settlementSolana reconcile', () => {
  let h: SolanaCollectedHarness;
  before(async () => {
    h = await startSolanaCollectedHarness();
  });
  after(() => h.close());

  /**
   * One run that read this chain. A run whose reads of a chain fail keeps that chain's previous result (the timer runs
   * again); the test is about what a reading run finds, so it waits for one, and names the failure if none comes.
   */
  async function onSolana(): Promise<Difference[]> {
    return eventually(`a reconciliation run that reads ${h.caip2}`, async () => {
      const result = await h.runtime.reconciler!.run();
      return !result.failedChains.includes(h.caip2) && result.differences.filter((d) => d.chain === h.caip2);
    });
  }
  const mint = (owner: string, amount: bigint) =>
    h.solana.faucet.mintTokens(owner as Address, h.solana.mints.tusd.address, amount);

  it('run: a detected deposit agrees; tokens minted to it stand as a surplus: a finding, readiness stays ok', async () => {
    const reconciler = h.runtime.reconciler!;
    const { paymentId, deposit } = await h.livePayment();
    await h.transfer(await h.sender(), [[deposit, ASKED]]);
    await h.scanUntil('the payment to succeed', async () => (await h.payment(paymentId)).status === 'succeeded');
    assert.deepEqual(await onSolana(), [], 'the ledger and the chain agree');

    // A deliberate difference: tokens that no transfer detection records explain.
    await mint(deposit, 1_234n);
    const pending = await onSolana();
    assert.deepEqual(
      pending.map((d) => [d.role, d.address, d.expected, d.actual, d.difference, d.state]),
      [['deposit', deposit, ASKED, ASKED + 1_234n, 1_234n, 'pending']],
    );
    await reconciler.readiness.check(new AbortController().signal);

    h.clock.advance(PENDING_MS);
    const standing = await onSolana();
    assert.deepEqual(
      standing.map((d) => [d.role, d.difference, d.state]),
      [['deposit', 1_234n, 'standing']],
    );
    await reconciler.readiness.check(new AbortController().signal);
    const findings = (await h.runtime.db
      .knex('discrepancies')
      .where({ payment_id: paymentId, kind: 'unwatched_deposit' })
      .select('expected_value', 'received_value')) as { expected_value: string; received_value: string }[];
    assert.deepEqual(findings, [{ expected_value: ASKED.toString(), received_value: (ASKED + 1_234n).toString() }]);
  });

  it('run: tokens minted to the collection account are a reported surplus that never fails readiness', async () => {
    const collection = await h.port.keyAddress(h.caip2, { role: 'collection' });
    await mint(collection, 5n);
    h.clock.advance(PENDING_MS);
    const found = (await onSolana()).find((d) => d.role === 'collection');
    assert.deepEqual(
      [found?.address, found?.expected, found?.actual, found?.difference, found?.state],
      [collection, 0n, 5n, 5n, 'standing'],
    );
    // Anyone can send to a public address: failing readiness on it would hand anyone an off switch.
    assert.equal(failsReadiness(found!), false);
  });
});
