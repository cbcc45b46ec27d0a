import assert from 'node:assert/strict';
import { insertClaim, type ClaimRow } from '../../server/src/db/queries/claims.js';
import { insertDiscrepancy, listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { isUniqueViolation } from '../../server/src/db/failure.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { testRuntime } from '../helpers/runtime.js';
import { expectJson } from './harness.js';
import { signAction, startCheckoutHarness, type StatusAnswer } from './checkout.js';

/** What the database itself guarantees about claims, whatever the application does (docs/decisions.md §17). */
describeEachDatabase('gateway claims storage', (get) => {
  useChainSnapshots();

  const claim = (paymentId: string, claimKey: string, txId: string | null): ClaimRow => ({
    id: `clm_${Math.random().toString(36).slice(2)}`,
    paymentId,
    claimKey,
    kind: 'erc20',
    chain: 'eip155:31337',
    account: 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    optionDigest: 'a'.repeat(64),
    resultsDigest: 'b'.repeat(64),
    txId,
    state: 'pending',
    details: {},
    createdAt: 1,
    updatedAt: 1,
  });

  it('a claim key, a transaction and a payment can each be claimed once', async () => {
    const runtime = await testRuntime({ db: get().db });
    try {
      const { merchantId } = await createMerchantAccount(runtime);
      const payment = () =>
        createPayment(runtime, {
          merchantId,
          live: false,
          referenceId: 'r',
          amount: { unit: 'iso4217/USD', value: '1' },
          expiresAt: runtime.now() + 60_000,
          successUrl: null,
          errorUrl: null,
        });
      const [a, b, c] = [await payment(), await payment(), await payment()];
      const knex = runtime.db.knex;
      await insertClaim(knex, claim(a.id, 'key-1', '0x01'));
      for (const second of [claim(b.id, 'key-1', '0x02'), claim(b.id, 'key-2', '0x01'), claim(a.id, 'key-3', '0x03')]) {
        await assert.rejects(insertClaim(knex, second), (err: unknown) => isUniqueViolation(err));
      }
      // Claims without a transaction yet (a relay not sent) do not collide with each other.
      await insertClaim(knex, claim(b.id, 'key-4', null));
      await insertClaim(knex, claim(c.id, 'key-5', null));

      const finding = {
        id: 'dsc_a',
        paymentId: a.id,
        kind: 'late_payment' as const,
        live: false,
        chain: 'eip155:31337',
        txId: '0x01',
        assetUnit: 'caip19/eip155:31337/slip44:60',
        expectedValue: '1',
        receivedValue: '1',
        note: 'late',
        createdAt: 1,
      };
      await insertDiscrepancy(knex, finding);
      await insertDiscrepancy(knex, { ...finding, id: 'dsc_b' });
      assert.equal((await listDiscrepancies(knex, { paymentId: a.id, limit: 10 })).length, 1);
    } finally {
      await runtime.close();
    }
  });

  it('20 concurrent confirms of one payment: one processing event, one relay', async () => {
    const h = await startCheckoutHarness({ db: get().db });
    try {
      const buyer = await h.buyer();
      const paymentId = await h.createPayment();
      const option = await h.optionFor(paymentId, buyer, h.tusd);
      const body = { optionId: option.id, results: [await signAction(buyer, option)] };
      const relayer = h.local.clients.relayer.account.address;
      const sent = await h.local.clients.public.getTransactionCount({ address: relayer });
      const answers = await Promise.all(Array.from({ length: 20 }, () => h.confirm(paymentId, body)));
      for (const answer of answers) assert.equal((await expectJson<StatusAnswer>(answer, 200)).status, 'processing');
      const processing = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.processing' });
      assert.equal(processing.length, 1);
      await h.drain();
      assert.equal(await h.local.clients.public.getTransactionCount({ address: relayer }), sent + 1);
    } finally {
      await h.close();
    }
  });
});
