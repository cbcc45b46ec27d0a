/**
 * A counted collected deposit whose endpoints, all of them, answer "not found" for its transaction, then lag behind
 * its block (the chaos run's faults, /work/notes/chaos.md), with no reorganisation at all, on both databases: the
 * transfer is not recorded as reorged out, the ledger still counts it, the payment stays as it was, and once the
 * endpoints behave again everything is normal (decisions.md §27.17). A real reorganisation is still detected:
 * settlement.scanDeposits.anvilReorg.test.ts.
 */
import assert from 'node:assert/strict';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { evmDepositScan } from '../../server/src/chains/eip155/depositScan.js';
import type { Chains } from '../../server/src/chains/index.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { ASKED, ledgerOf, startDetectionHarness, type DetectionHarness } from './detection.js';

describeEachDatabase('settlement.scanDeposits with endpoints that lose a counted transfer', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  let logs: CapturedLogs;
  let proxies: FaultProxy[];
  let chains: Chains;

  before(async () => {
    const shared = await sharedChains();
    const anvil = (await sharedLocalChain()).config.rpcUrl;
    proxies = [await startFaultProxy(anvil), await startFaultProxy(anvil)];
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: proxies.map((p) => ({ url: p.url, timeoutMs: 2_000, weight: 1 })) };
      return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50 }) };
    });
    chains = { ...shared, evm };
    logs = captureLogs('info');
    h = await startDetectionHarness({ chains, db: get().db, logger: logs.logger });
  });
  after(async () => {
    await h.close();
    for (const p of proxies) await p.close();
  });
  beforeEach(() => h.startAtHead());
  afterEach(() => {
    for (const p of proxies) p.heal();
  });

  it('a counted deposit answered "not found" or behind a stale head stays counted and is not recorded as reorged out', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const paid = await h.pay(await h.buyer(), deposit, ASKED);
    assert.deepEqual((await h.scan()).succeeded, [paymentId]);
    const counted = ledgerOf(await h.ledger(paymentId));
    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => t.state),
      ['seen'],
      'still watched: not final yet',
    );

    const unchanged = async (why: string) => {
      assert.equal((await h.payment(paymentId)).status, 'succeeded', why);
      assert.deepEqual(ledgerOf(await h.ledger(paymentId)), counted, why);
      assert.deepEqual(await h.discrepancies(paymentId), [], why);
      assert.notEqual((await h.transfers(paymentId))[0]!.state, 'reorged', why);
    };

    // Every endpoint has "not seen" the transaction.
    for (const p of proxies) p.inject('eth_getTransactionReceipt', { kind: 'notFound' });
    for (let i = 0; i < 2; i++) assert.deepEqual((await h.scan()).reorged, [], 'not found is no reorganisation');
    await unchanged('after "not found"');

    // Every endpoint is stuck below the transfer's block: it knows neither the transaction nor its block.
    for (const p of proxies) {
      p.heal();
      p.inject('*', { kind: 'staleHead', head: paid.blockNumber - 1n });
    }
    for (let i = 0; i < 2; i++) assert.deepEqual((await h.scan()).reorged, [], 'a lagging node is no reorganisation');
    await unchanged('after a stale head');

    for (const p of proxies) p.heal();
    await h.local.test.mine({ blocks: 2 });
    assert.deepEqual((await h.scan()).reorged, []);
    await unchanged('after the faults end');
    assert.ok(!logs.lines().some((l) => String(l.msg).includes('reorged out')), 'nothing logged as reorged out');
  });

  it('a deposit seen below the required confirmations and then "not found" is not lost, and pays once the endpoints answer', async () => {
    const scanner = evmDepositScan({
      ...chains,
      evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, confirmations: 3 } })),
    });
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const paid = await h.pay(await h.buyer(), deposit, ASKED);
    assert.equal((await h.scan(scanner)).recorded, 1);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');

    for (const p of proxies) p.inject('eth_getTransactionReceipt', { kind: 'notFound' });
    await h.local.test.mine({ blocks: 3 });
    assert.deepEqual((await h.scan(scanner)).reorged, [], 'not found is no reorganisation');
    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => [t.tx_id, t.state]),
      [[paid.hash, 'seen']],
      'still watched',
    );
    assert.equal((await h.payment(paymentId)).status, 'requires_action', 'not credited without an answer');

    for (const p of proxies) p.heal();
    assert.deepEqual((await h.scan(scanner)).succeeded, [paymentId]);
    assert.equal(ledgerOf(await h.ledger(paymentId)).filter(([kind]) => kind === 'received').length, 1);
  });
});
