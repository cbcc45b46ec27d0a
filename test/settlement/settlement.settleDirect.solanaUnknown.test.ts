/**
 * Direct settlement of a live Solana payment whose RPC endpoint answers "not found" (a null signature status) for a
 * transaction that landed: the run's LiteSVM behind a fault proxy, the payment confirmed and watched through the
 * gateway as a buyer would. A signature nobody knows is gone only once it can no longer land (decisions.md §27.22,
 * §27.30): within its landing window the payment is not counted or logged as gone and settles once final; past it
 * the rule still answers gone.
 */
import assert from 'node:assert/strict';
import { getBase64EncodedWireTransaction, getTransactionDecoder, partiallySignTransaction } from '@solana/kit';
import type { Chains } from '../../server/src/chains/index.js';
import { createSolanaClient, solanaRpcPool } from '../../server/src/chains/solana/client.js';
import { SOLANA_LANDING_WINDOW_SLOTS } from '../../server/src/chains/solana/depositScan.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { silentObserver } from '../../server/src/observability/observer.js';
import { DEFAULT_DIRECT_SETTLEMENT, settleDirect } from '../../server/src/settlement/direct/settleDirect.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { sharedChains } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { expectJson } from '../gateway/harness.js';
import {
  startCheckoutHarness,
  type CheckoutHarness,
  type OptionsAnswer,
  type StatusAnswer,
} from '../gateway/checkout.js';

const GONE_LINE = 'left the chain before finality';

describeEachDatabase('settlement.settleDirect of a Solana payment its endpoint answers "not found" for', (get) => {
  let h: CheckoutHarness;
  let proxy: FaultProxy;
  let logs: CapturedLogs;

  before(async () => {
    const shared = await sharedChains();
    proxy = await startFaultProxy(shared.solana[0]!.config.rpcUrl);
    const solana = shared.solana.map((c) => {
      const config = {
        ...c.config,
        mode: 'live' as const,
        rpcEndpoints: [{ url: proxy.url, timeoutMs: 2_000, weight: 1 }],
      };
      const pool = solanaRpcPool(config, silentObserver, { breakerOpenMs: 200, backoffMs: 20 });
      return { ...c, config, pool, rpc: createSolanaClient(config, silentObserver, pool) };
    });
    const chains: Chains = { ...shared, solana };
    logs = captureLogs('info');
    h = await startCheckoutHarness({ chains, db: get().db, logger: logs.logger });
  });
  after(async () => {
    await h.close();
    await proxy.close();
  });
  afterEach(() => proxy.heal());

  /** A live payment paid through options, fetch and confirm, watched until it succeeded; answers its signature. */
  async function paidLive(): Promise<{ paymentId: string; signature: string }> {
    const headers = { 'Api-Key': h.wallet.liveKey };
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment({ live: true });
    const answer = await expectJson<OptionsAnswer>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/options`, { body: { accounts: [buyer.caip10] }, headers }),
      200,
    );
    const option = answer.options!.find((o) => o.amount.unit === `caip19/${h.solanaTusd}`)!;
    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    const fetched = await expectJson<{ actions: { data: { params: unknown[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
        headers,
      }),
      200,
    );
    const { transaction } = fetched.actions[0]!.data.params[0] as { transaction: string };
    const tx = getTransactionDecoder().decode(Buffer.from(transaction, 'base64'));
    const signed = getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.signer.keyPair], tx));
    await expectJson<StatusAnswer>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/confirm`, {
        body: { optionId: option.id, results: [signed] },
        headers,
      }),
      200,
    );
    const succeeded = await driveJobsUntil(`payment ${paymentId} to succeed`, h, async () => {
      const p = await findPayment(h.runtime.db.knex, paymentId);
      return p?.status === 'succeeded' ? p : undefined;
    });
    return { paymentId, signature: succeeded.stages.success!.tx_id };
  }

  const goneCount = async () =>
    /outcome="gone"/.test(await h.runtime.metrics.registry.getSingleMetricAsString('paygate_settlement_reorgs_total'));

  it('a landed signature answered "not found" within its landing window is not gone, and the payment settles once final', async () => {
    const { paymentId, signature } = await paidLive();
    // The endpoint no longer knows the signature: a node that has not seen it, or one behind its slot.
    proxy.inject('getSignatureStatuses', { kind: 'notFound' });
    const deps = h.runtime.checkout!;
    for (let i = 0; i < 3; i++) {
      assert.equal(await settleDirect(deps, { paymentId }), 'pending', 'it may still land: not gone');
      h.clock.advance(DEFAULT_DIRECT_SETTLEMENT.recheckMs);
    }
    assert.ok(!logs.text().includes(GONE_LINE), 'no error line says it left the chain');
    assert.equal(await goneCount(), false, 'no gone count');

    proxy.heal();
    h.solana.test.warpSlots(32n);
    const settled = await driveJobsUntil(
      `payment ${paymentId} to settle`,
      h,
      async () => (await findPayment(h.runtime.db.knex, paymentId))?.stages.settled ?? undefined,
      { stepMs: DEFAULT_DIRECT_SETTLEMENT.recheckMs },
    );
    assert.equal(settled.tx_id, signature);
    const received = (await listLedgerEntries(h.runtime.db.knex, { paymentId })).filter((e) => e.kind === 'received');
    assert.deepEqual(
      received.map((e) => e.txId),
      [signature],
      'settled once',
    );
    assert.deepEqual(await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 }), []);
    assert.ok(!logs.text().includes(GONE_LINE));
    assert.equal(await goneCount(), false);
  });

  it('a signature nobody knows once the chain is past its landing window is gone', async () => {
    const { paymentId } = await paidLive();
    proxy.inject('getSignatureStatuses', { kind: 'notFound' });
    h.solana.test.warpSlots(SOLANA_LANDING_WINDOW_SLOTS + 64n);
    assert.equal(await settleDirect(h.runtime.checkout!, { paymentId }), 'gone');
    assert.equal((await findPayment(h.runtime.db.knex, paymentId))?.stages.settled, null);
    assert.ok(logs.text().includes(GONE_LINE), 'logged as gone');
    assert.equal(await goneCount(), true, 'counted as gone');
  });
});
