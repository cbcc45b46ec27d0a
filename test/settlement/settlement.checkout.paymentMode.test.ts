/**
 * The payment's own settlement mode decides its checkout (docs/decisions.md §22.14): a payment keeps the mode its
 * merchant had when it was created (payments.settlement_mode), so a switch made while it is open changes neither
 * what its options pay nor how it settles. Before, the checkout read the merchant's current mode: switching to
 * direct let a collected payment be paid to the merchant with no fee, and switching to collected made a direct
 * payment "settle" on a deposit with a `direct` received row naming an address that never saw the money.
 */
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import type { Chains } from '../../server/src/chains/index.js';
import { updateMerchantSettings } from '../../server/src/accounts/merchants.js';
import type { SettlementMode } from '../../server/src/db/queries/accounts.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { DEFAULT_DIRECT_SETTLEMENT } from '../../server/src/settlement/direct/settleDirect.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { expectError, expectJson } from '../gateway/harness.js';
import {
  LOCAL,
  SETTLEMENT,
  signAction,
  startCheckoutHarness,
  typedDataOf,
  type CheckoutHarness,
  type OptionsAnswer,
} from '../gateway/checkout.js';

/** The shared chains with the local EVM chain serving live payments (as a mainnet would). */
function liveEvm(chains: Chains): Chains {
  return { ...chains, evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, mode: 'live' as const } })) };
}

const FEE = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};

describeEachDatabase('settlement.checkout: the payment’s mode decides', (get) => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness({
      chains: liveEvm(await sharedChains()),
      merchant: { feeConfig: FEE },
      db: get().db,
    });
  });
  after(() => h.close());

  const liveCall = (method: string, path: string, body?: unknown) =>
    h.call(method, path, { body, headers: { 'Api-Key': h.wallet.liveKey } });
  const switchTo = (settlementMode: SettlementMode) =>
    updateMerchantSettings(h.runtime, h.account.merchantId, { settlementMode }, { depositSeed: true });

  /** The buyer's live TUSD option, signed (EIP-3009) and confirmed; the jobs then carry the payment to `succeeded`. */
  async function pay(paymentId: string) {
    const buyer = await h.buyer();
    const answer = await expectJson<OptionsAnswer>(
      await liveCall('POST', `/v1/gateway/payment/${paymentId}/options`, { accounts: [buyer.caip10] }),
      200,
    );
    const option = answer.options?.find((o) => o.amount.unit === `caip19/${h.tusd}`);
    assert.ok(option, 'a live TUSD option');
    const recipient = getAddress(typedDataOf(option).message.to as string);
    const signature = await signAction(buyer, option);
    await expectJson(
      await liveCall('POST', `/v1/gateway/payment/${paymentId}/confirm`, { optionId: option.id, results: [signature] }),
      200,
    );
    const payment = await driveJobsUntil(`payment ${paymentId} to succeed`, h, async () => {
      const p = await findPayment(h.runtime.db.knex, paymentId);
      if (p?.status === 'failed') throw new Error(`payment failed: ${JSON.stringify(p.stages.failed)}`);
      return p?.status === 'succeeded' ? p : undefined;
    });
    return { recipient, payment };
  }

  it('created collected, paid after a switch to direct: the deposit is paid and the fee and payable are recorded', async () => {
    await switchTo('collected');
    const paymentId = await h.createPayment({ live: true });
    await switchTo('direct');

    const deposits = await expectJson<{ deposits: { chain: string; address: string }[] }>(
      await liveCall('GET', `/v1/gateway/payment/${paymentId}/deposit`),
      200,
    );
    const deposit = deposits.deposits.find((d) => d.chain === LOCAL);
    assert.ok(deposit, 'the collected payment still offers its EVM deposit address');
    const merchantBefore = await h.tusdBalance(SETTLEMENT);
    const { recipient, payment } = await pay(paymentId);
    assert.equal(recipient, getAddress(deposit.address));
    assert.equal(await h.tusdBalance(SETTLEMENT), merchantBefore, 'nothing went to the merchant directly');
    assert.equal(await h.tusdBalance(deposit.address), 12_500_000n);

    // 12.5 TUSD less the fee (0.30 USD + 2.9 %): the payout keeps the fee back.
    assert.deepEqual(payment.stages.processing?.settlement_amount, { unit: `caip19/${h.tusd}`, value: '11837500' });
    const entries = await listLedgerEntries(h.runtime.db.knex, { paymentId });
    const of = (kind: string) => entries.find((e) => e.kind === kind);
    assert.equal(of('fee')?.amount, 662_500n);
    assert.equal(of('payable')?.amount, 11_837_500n);
    for (const e of [of('fee')!, of('payable')!]) {
      assert.equal(e.mode, 'collected');
      assert.equal(getAddress(e.address!), getAddress(deposit.address));
    }
    assert.equal(of('received')?.mode ?? 'collected', 'collected', 'no direct received row');
  });

  it('created direct, paid after a switch to collected: the merchant is paid and the received row names its address', async () => {
    await switchTo('direct');
    const paymentId = await h.createPayment({ live: true });
    await switchTo('collected');
    try {
      await expectError(await liveCall('GET', `/v1/gateway/payment/${paymentId}/deposit`), 409, 'invalid_state');
      const merchantBefore = await h.tusdBalance(SETTLEMENT);
      const { recipient, payment } = await pay(paymentId);
      assert.equal(recipient, getAddress(SETTLEMENT));
      assert.equal((await h.tusdBalance(SETTLEMENT)) - merchantBefore, 12_500_000n);
      assert.deepEqual(payment.stages.processing?.settlement_amount, { unit: `caip19/${h.tusd}`, value: '12500000' });
      const knex = h.runtime.db.knex;
      assert.equal(await knex('deposit_accounts').where({ payment_id: paymentId }).first(), undefined);

      await h.local.test.mine({ blocks: 64 });
      await driveJobsUntil(
        `payment ${paymentId} to settle`,
        h,
        async () => (await findPayment(knex, paymentId))?.stages.settled ?? undefined,
        { stepMs: DEFAULT_DIRECT_SETTLEMENT.recheckMs },
      );
      const entries = await listLedgerEntries(knex, { paymentId });
      const received = entries.find((e) => e.kind === 'received');
      assert.equal(received?.mode, 'direct');
      assert.equal(received?.address, SETTLEMENT);
      assert.equal(received?.amount, 12_500_000n);
      assert.equal(
        entries.find((e) => e.kind === 'payable'),
        undefined,
        'nothing is payable out of the collection account',
      );
    } finally {
      await switchTo('direct');
    }
  });
});
