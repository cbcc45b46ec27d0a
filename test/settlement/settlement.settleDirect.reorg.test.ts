/**
 * Reorganisations made by anvil itself (`anvil_reorg`: the last blocks replaced by new ones, with chosen
 * transactions put back), seen by the gateway through two RPC endpoints (fault proxies), on both databases:
 * a reorganisation shallower than the required confirmations that puts the payment's transfer back lets the payment
 * wait and then succeed and settle once; one that removes the transfer before finality settles nothing and ends in
 * a counted `reorged_out` discrepancy (decisions.md §27.10). The money invariants are checked after each.
 */
import assert from 'node:assert/strict';
import type { Hash, Hex } from 'viem';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { DEFAULT_DIRECT_SETTLEMENT, settleDirect } from '../../server/src/settlement/direct/settleDirect.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { driveJobsUntil, receiptOf } from '../helpers/wait.js';
import { expectJson } from '../gateway/harness.js';
import {
  SETTLEMENT,
  sendAction,
  startCheckoutHarness,
  withDirectTusd,
  type CheckoutHarness,
  type OptionsAnswer,
} from '../gateway/checkout.js';
import { anvilReorg, onCanonicalChain, rawTransaction } from '../helpers/reorg.js';
import { assertNoViolations, checkInvariants, scopeOf } from '../helpers/invariants.js';

describeEachDatabase('settlement.settleDirect through anvil reorganisations', (get) => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let a: FaultProxy;
  let b: FaultProxy;

  before(async () => {
    // Three confirmations, so a one-block reorganisation is shallower than the depth a payment needs.
    const shared = withDirectTusd(await sharedChains(), { confirmations: 3 });
    const anvil = (await sharedLocalChain()).config.rpcUrl;
    [a, b] = [await startFaultProxy(anvil), await startFaultProxy(anvil)];
    const evm = shared.evm.map((c) => {
      const config = {
        ...c.config,
        mode: 'live' as const,
        rpcEndpoints: [a.url, b.url].map((url) => ({ url, timeoutMs: 2_000, weight: 1 })),
      };
      return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50 }) };
    });
    const chains: Chains = { ...shared, evm };
    h = await startCheckoutHarness({ chains, db: get().db });
  });
  after(async () => {
    await h.close();
    await a.close();
    await b.close();
  });

  const settlementBalance = () =>
    h.local.clients.public.readContract({
      address: h.local.testUsd,
      abi: [
        {
          type: 'function',
          name: 'balanceOf',
          stateMutability: 'view',
          inputs: [{ name: 'a', type: 'address' }],
          outputs: [{ name: '', type: 'uint256' }],
        },
      ] as const,
      functionName: 'balanceOf',
      args: [SETTLEMENT as Hex],
    });

  async function payAndConfirm(): Promise<{ paymentId: string; hash: Hash }> {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment({ live: true });
    const call = (path: string, body: unknown) =>
      h.call('POST', path, { body, headers: { 'Api-Key': h.wallet.liveKey } });
    const answer = await expectJson<OptionsAnswer>(
      await call(`/v1/gateway/payment/${paymentId}/options`, { accounts: [buyer.caip10] }),
      200,
    );
    const option = answer.options!.find((o) => o.amount.unit === `caip19/${h.tusd}`)!;
    const hash = await sendAction(buyer, option);
    await expectJson(
      await call(`/v1/gateway/payment/${paymentId}/confirm`, { optionId: option.id, results: [hash] }),
      200,
    );
    return { paymentId, hash };
  }

  const payment = async (id: string) => (await findPayment(h.runtime.db.knex, id))!;

  it('a reorganisation below the required confirmations that puts the transfer back: the payment waits, then succeeds and settles once', async () => {
    const before = await settlementBalance();
    const { paymentId, hash } = await payAndConfirm();
    const raw = await rawTransaction(h.local.clients.public, hash);
    const first = await receiptOf(h.local.clients.public, hash);
    // The blocks from the transfer's to the head are replaced, and the same signed transaction goes back into the
    // newest replacement: one confirmation again, at another height than before (one block is mined first), so it
    // is in another block whatever anvil does with timestamps (an identical block at the same height hashes alike).
    await h.local.test.increaseTime({ seconds: 30 });
    await h.local.test.mine({ blocks: 1 });
    const depth = Number((await h.local.clients.public.getBlockNumber()) - first.blockNumber) + 1;
    await anvilReorg(h.local.clients.public, depth, [[raw, depth - 1]]);
    const again = await receiptOf(h.local.clients.public, hash);
    assert.notEqual(again.blockHash, first.blockHash, 'the transfer now sits in another block');
    await h.drain();
    h.clock.advance(2_000);
    await h.drain();
    assert.notEqual((await payment(paymentId)).status, 'succeeded', 'one confirmation of three: it waits');

    await h.local.test.mine({ blocks: 2 });
    await driveJobsUntil(`payment ${paymentId} to succeed`, h, async () =>
      (await payment(paymentId)).status === 'succeeded' ? true : undefined,
    );
    await h.local.test.mine({ blocks: 64 });
    const settled = await driveJobsUntil(
      `payment ${paymentId} to settle`,
      h,
      async () => (await payment(paymentId)).stages.settled ?? undefined,
      { stepMs: DEFAULT_DIRECT_SETTLEMENT.recheckMs },
    );
    assert.equal(settled.tx_id, hash);

    // Invariants: the settled transfer is final on the canonical chain; it pays this payment once; the merchant's
    // balance moved by it once; nothing is reported; the process still serves.
    const receipt = await receiptOf(h.local.clients.public, hash);
    const finalized = await h.local.clients.public.getBlock({ blockTag: 'finalized' });
    assert.ok(receipt.blockNumber <= finalized.number);
    const received = (await listLedgerEntries(h.runtime.db.knex, { kinds: ['received'] })).filter(
      (e) => e.txId === hash,
    );
    assert.deepEqual(
      received.map((e) => e.paymentId),
      [paymentId],
    );
    assert.equal((await settlementBalance()) - before, received[0]!.amount);
    assert.equal((await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 })).length, 0);
    assert.equal((await h.call('GET', '/healthz')).status, 200);
    // Earlier tests' payments share the database while their blocks were reverted: this payment's findings only.
    assertNoViolations(
      (await checkInvariants(scopeOf(h.runtime, { chains: await sharedChains() }))).filter((v) =>
        v.detail.includes(paymentId),
      ),
    );
  });

  it('a reorganisation that removes a succeeded payment’s transfer before finality settles nothing and is counted as reorged out', async () => {
    const before = await settlementBalance();
    const { paymentId, hash } = await payAndConfirm();
    await h.local.test.mine({ blocks: 2 });
    await driveJobsUntil(`payment ${paymentId} to succeed`, h, async () =>
      (await payment(paymentId)).status === 'succeeded' ? true : undefined,
    );
    const paidAt = (await receiptOf(h.local.clients.public, hash)).blockNumber;
    const head = await h.local.clients.public.getBlockNumber({ cacheTime: 0 });
    // Every block from the transfer's on is replaced by an empty one; the transfer is in none of them.
    await anvilReorg(h.local.clients.public, Number(head - paidAt + 1n), []);
    await h.local.test.mine({ blocks: 70 });
    assert.equal(await onCanonicalChain(h.local.clients.public, hash), false);

    const deps = h.runtime.checkout!;
    const options = { recheckMs: 1_000, goneAfterMs: 60_000 };
    assert.equal(await settleDirect(deps, { paymentId }, options), 'gone');
    const since = h.clock.now();
    h.clock.advance(60_000);
    assert.equal(await settleDirect(deps, { paymentId, goneSince: since }, options), 'abandoned');

    // Invariants: nothing settled, nothing counted as received, the merchant's balance as before, one discrepancy
    // naming the transfer, the reorganisation counted, the process still serving.
    const p = await payment(paymentId);
    assert.equal(p.stages.settled, null);
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { paymentId })).length, 0);
    assert.equal(await settlementBalance(), before);
    const found = await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 });
    assert.deepEqual(
      found.map((d) => [d.kind, d.txId]),
      [['reorged_out', hash]],
    );
    const metrics = await h.runtime.metrics.registry.getSingleMetricAsString('paygate_settlement_reorgs_total');
    assert.match(metrics, /outcome="gone"/);
    assert.equal((await h.call('GET', '/healthz')).status, 200);
    // The shared invariants see exactly this: a succeeded payment whose transfer the chain no longer holds, the
    // case the discrepancy reports; nothing else (no transfer counted twice, no move, the ledger as the chain).
    const violations = (await checkInvariants(scopeOf(h.runtime, { chains: await sharedChains() }))).filter((v) =>
      v.detail.includes(paymentId),
    );
    assert.deepEqual(
      violations.map((v) => v.invariant),
      ['succeededOnChain'],
    );
    assert.ok(violations[0]!.detail.includes(paymentId));
  });
});
