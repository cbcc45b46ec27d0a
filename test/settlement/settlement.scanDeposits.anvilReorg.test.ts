/**
 * A collected deposit counted at the required confirmations, then removed by a reorganisation (anvil_reorg) seen
 * through two RPC endpoints, on both databases: the payment is not reversed silently, the loss is logged, recorded as
 * a discrepancy and counted in `paygate_settlement_reorgs_total`, and the missing funds are never swept or paid out
 * (decisions.md §27.10). The money invariants are checked inline.
 */
import assert from 'node:assert/strict';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import type { Chains } from '../../server/src/chains/index.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { anvilReorg, onCanonicalChain } from '../helpers/reorg.js';
import { checkInvariants, scopeOf } from '../helpers/invariants.js';
import { ASKED, startDetectionHarness, type DetectionHarness } from './detection.js';

describeEachDatabase('settlement.scanDeposits through an anvil reorganisation', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  let logs: CapturedLogs;
  let proxies: FaultProxy[];

  before(async () => {
    const shared = await sharedChains();
    const anvil = (await sharedLocalChain()).config.rpcUrl;
    proxies = [await startFaultProxy(anvil), await startFaultProxy(anvil)];
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: proxies.map((p) => ({ url: p.url, timeoutMs: 2_000, weight: 1 })) };
      return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50 }) };
    });
    const chains: Chains = { ...shared, evm };
    logs = captureLogs('info');
    h = await startDetectionHarness({ chains, db: get().db, logger: logs.logger });
  });
  after(async () => {
    await h.close();
    for (const p of proxies) await p.close();
  });
  beforeEach(() => h.startAtHead());

  it('a counted deposit removed before finality is logged, recorded, counted, and never swept or paid out', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const paid = await h.pay(buyer, deposit, ASKED);
    assert.deepEqual((await h.scan()).succeeded, [paymentId]);

    const head = await h.local.clients.public.getBlockNumber({ cacheTime: 0 });
    await anvilReorg(h.local.clients.public, Number(head - paid.blockNumber + 1n), []);
    await h.local.test.mine({ blocks: 2 });
    assert.equal(await onCanonicalChain(h.local.clients.public, paid.hash), false);
    assert.equal((await h.scan()).reorged.length, 1);

    const payment = await h.payment(paymentId);
    assert.equal(payment.status, 'succeeded', 'not reversed silently');
    assert.deepEqual(
      (await h.discrepancies(paymentId)).map((d) => [d.kind, d.txId, d.receivedValue]),
      [['underpayment', paid.hash, '0']],
    );
    assert.ok(logs.lines().some((l) => l.paymentId === paymentId && l.level === 50 && l.txId === paid.hash));
    const metrics = await h.runtime.metrics.registry.getSingleMetricAsString('paygate_settlement_reorgs_total');
    assert.match(metrics, /outcome="depositLost"/, 'the loss is counted for alerting');

    // Invariants: the deposit address holds nothing on the canonical chain, and nothing draws on the missing funds.
    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => t.state),
      ['reorged'],
    );
    assert.deepEqual(await planSweeps(h.runtime.checkout!), []);
    assert.deepEqual(await planPayouts(h.runtime.checkout!), []);
    assert.equal((await h.runtime.db.knex('payout_items').where({ payment_id: paymentId })).length, 0);
    assert.equal((await h.call('GET', '/healthz')).status, 200);
    // The shared invariants report exactly the loss the discrepancy names: the payment's transfer is off the chain
    // and the deposit address lacks what the ledger counts; nothing was moved or counted twice.
    const found = await checkInvariants(scopeOf(h.runtime, { chains: await sharedChains() }));
    assert.deepEqual([...new Set(found.map((v) => v.invariant))].sort(), ['ledgerEqualsChain', 'succeededOnChain']);
  });
});
