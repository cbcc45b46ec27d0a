/**
 * Liveness with a stuck but preferred endpoint (decisions.md §27.12): the heavier of two endpoints is pinned at an
 * old head that still trails the best by no more than `maxHeadLag`, so the lag rule keeps it; the payment must still
 * succeed on the head the other endpoint knows, instead of waiting as long as the stuck node does.
 */
import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { expectJson } from '../gateway/harness.js';
import {
  sendAction,
  startCheckoutHarness,
  withDirectTusd,
  type CheckoutHarness,
  type OptionsAnswer,
} from '../gateway/checkout.js';

describeEachDatabase('settlement.settleDirect with a heavier endpoint stuck inside the lag bound', (get) => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let stuck: FaultProxy;
  let good: FaultProxy;

  before(async () => {
    const shared = withDirectTusd(await sharedChains(), { confirmations: 2 });
    const anvil = (await sharedLocalChain()).config.rpcUrl;
    [stuck, good] = [await startFaultProxy(anvil), await startFaultProxy(anvil)];
    const evm = shared.evm.map((c) => {
      const config = {
        ...c.config,
        mode: 'live' as const,
        maxHeadLag: 2,
        rpcEndpoints: [
          { url: stuck.url, timeoutMs: 2_000, weight: 5 },
          { url: good.url, timeoutMs: 2_000, weight: 1 },
        ],
      };
      return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50 }) };
    });
    const chains: Chains = { ...shared, evm };
    h = await startCheckoutHarness({ chains, db: get().db });
  });
  after(async () => {
    await h.close();
    await stuck.close();
    await good.close();
  });

  it('a payment succeeds on the best head while the preferred endpoint stays stuck within the lag bound', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment({ live: true });
    const call = (path: string, body: unknown) =>
      h.call('POST', path, { body, headers: { 'Api-Key': h.wallet.liveKey } });
    const answer = await expectJson<OptionsAnswer>(
      await call(`/v1/gateway/payment/${paymentId}/options`, { accounts: [buyer.caip10] }),
      200,
    );
    const option = answer.options!.find((o) => o.amount.unit === `caip19/${h.tusd}`)!;
    // Stuck from here: the buyer's funding is behind it, the transfer and the next block are not.
    const head = await h.local.clients.public.getBlockNumber({ cacheTime: 0 });
    stuck.inject('*', { kind: 'staleHead', head });
    const hash = await sendAction(buyer, option);
    await expectJson(
      await call(`/v1/gateway/payment/${paymentId}/confirm`, { optionId: option.id, results: [hash] }),
      200,
    );
    // The transfer's block and one more: two deep on the canonical chain, while the stuck node (two behind, inside
    // the bound) still sees neither.
    await h.local.test.mine({ blocks: 1 });
    const paid = await driveJobsUntil(
      `payment ${paymentId} to succeed`,
      h,
      async () => {
        const p = await findPayment(h.runtime.db.knex, paymentId);
        return p?.status === 'succeeded' ? p : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.equal(paid.status, 'succeeded');
    assert.equal((await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 })).length, 0);
  });
});
