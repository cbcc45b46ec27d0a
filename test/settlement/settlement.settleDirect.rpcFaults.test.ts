/**
 * Direct settlement on anvil through two RPC endpoints (fault proxies, test/helpers/faultProxy.ts), one of which has
 * never seen the buyer's transaction and later lags: the payment still succeeds and settles once final, exactly once,
 * with no reorganisation discrepancy (decisions.md §27.4). The money invariants are checked at the end.
 */
import assert from 'node:assert/strict';
import type { Hash } from 'viem';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import type { RpcPoolOptions } from '../../server/src/chains/rpcPool.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { DEFAULT_DIRECT_SETTLEMENT } from '../../server/src/settlement/direct/settleDirect.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { driveJobsUntil, receiptOf } from '../helpers/wait.js';
import { expectJson } from '../gateway/harness.js';
import {
  sendAction,
  startCheckoutHarness,
  withDirectTusd,
  type CheckoutHarness,
  type OptionsAnswer,
} from '../gateway/checkout.js';

interface Setup {
  /** Endpoint a's weight: a heavier a is asked first until its lag is known. */
  weightOfA: number;
  pool?: Partial<RpcPoolOptions>;
}

function disagreeingEndpoints(title: string, test: string, setup: Setup): void {
  describeEachDatabase(title, (get) => {
    useChainSnapshots();
    let h: CheckoutHarness;
    let a: FaultProxy;
    let b: FaultProxy;

    before(async () => {
      const shared = withDirectTusd(await sharedChains());
      const anvil = (await sharedLocalChain()).config.rpcUrl;
      [a, b] = [await startFaultProxy(anvil), await startFaultProxy(anvil)];
      const evm = shared.evm.map((c) => {
        const config = {
          ...c.config,
          mode: 'live' as const,
          rpcEndpoints: [
            { url: a.url, timeoutMs: 1_000, weight: setup.weightOfA },
            { url: b.url, timeoutMs: 1_000, weight: 1 },
          ],
        };
        return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50, pool: setup.pool }) };
      });
      const chains: Chains = { ...shared, evm };
      h = await startCheckoutHarness({ chains, db: get().db });
    });
    after(async () => {
      await h.close();
      await a.close();
      await b.close();
    });

    /** Each succeeded payment's transfer is on the canonical chain at depth; no transfer or ledger row counts twice. */
    async function checkInvariants(paymentId: string, hash: Hash): Promise<void> {
      const receipt = await receiptOf(h.local.clients.public, hash);
      const finalized = await h.local.clients.public.getBlock({ blockTag: 'finalized' });
      assert.ok(receipt.blockNumber <= finalized.number, 'the settled transfer is final on the canonical chain');
      const counted = (await listLedgerEntries(h.runtime.db.knex, { kinds: ['received'] })).filter(
        (e) => e.txId === hash,
      );
      assert.deepEqual(
        counted.map((e) => e.paymentId),
        [paymentId],
        'the transfer pays one payment, once',
      );
      assert.equal((await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 })).length, 0);
      assert.equal((await h.call('GET', '/healthz')).status, 200, 'the process still serves');
    }

    it(test, async () => {
      // Endpoint a has never seen any transaction: its receipts and transactions are all "not found".
      a.inject('eth_getTransactionReceipt', { kind: 'notFound' });
      a.inject('eth_getTransactionByHash', { kind: 'notFound' });
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
      await driveJobsUntil(`payment ${paymentId} to succeed`, h, async () => {
        const p = await findPayment(h.runtime.db.knex, paymentId);
        return p?.status === 'succeeded' ? p : undefined;
      });

      // Now a also lags far behind: it would answer an old `finalized` block; it is not asked.
      const head = await h.local.clients.public.getBlockNumber({ cacheTime: 0 });
      a.inject('*', { kind: 'staleHead', head: head - 3n });
      await h.local.test.mine({ blocks: 64 });
      const settled = await driveJobsUntil(
        `payment ${paymentId} to settle`,
        h,
        async () => (await findPayment(h.runtime.db.knex, paymentId))?.stages.settled ?? undefined,
        { stepMs: DEFAULT_DIRECT_SETTLEMENT.recheckMs },
      );
      assert.equal(settled.tx_id, hash);
      // Whether endpoint a was asked depends on the pool's latency ranking under load, so it is not asserted here;
      // chains.rpcEndpoints.failover outvotes a "not found" deterministically.
      await checkInvariants(paymentId, hash);
    });
  });
}

disagreeingEndpoints(
  'settlement.settleDirect through RPC endpoints that disagree',
  'one node that cannot find the transaction and lags neither reorgs nor settles it early; the payment settles once',
  { weightOfA: 1 },
);

// The lagging node is the preferred one and the pool last read the heads before it fell behind: its "not found",
// contradicted by the other endpoint, is the only sign, and must be enough for the next read not to trust its old
// `finalized` block. A long head refresh makes that deterministic (with 2 s it depended on how fast the jobs ran).
disagreeingEndpoints(
  'settlement.settleDirect through a preferred RPC endpoint that falls behind between head reads',
  'a preferred node that cannot find the transaction and falls behind between head reads does not hold settlement back; the payment settles once',
  { weightOfA: 5, pool: { headRefreshMs: 600_000 } },
);
