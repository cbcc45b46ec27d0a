/**
 * Sweeps, payouts and refunds on the local Solana chain through the domain (settlement/sweeps.ts, payouts.ts,
 * refunds.ts planning; the `settlement.move` jobs carrying each row to `final`): deposits paid by plain transfers are
 * swept to the collection account, paid out net of fees in one transaction of two legs, and `payment.settled` names
 * the payout's signature only once it is finalized. SQLite only: the rows and their storage are the EVM moves', tested
 * on both databases in settlement.sweep / settlement.payout.
 */
import assert from 'node:assert/strict';
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Address,
} from '@solana/kit';
import type { OptionsAnswer } from '../gateway/checkout.js';
import { listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { expectJson } from '../gateway/harness.js';
import { ASKED, FEE_TOTAL } from './detection.js';
import { startSolanaCollectedHarness, type SolanaCollectedHarness } from './solanaCollected.js';

interface EventRow {
  payment_id: string;
  type: string;
  payload: string;
}

interface RefundBody {
  refunded: { refunds?: { refund_id: string; state: string; destination: string | null; tx_id: string | null }[] };
  refund?: { refund_id: string; state: string; destination: string | null; claim_url?: string | null };
}

describe('settlementSolana moves through the executor', () => {
  let h: SolanaCollectedHarness;
  beforeEach(async () => {
    // A harness per test: a fresh database and seed, so the collection account and treasury start empty.
    h = await startSolanaCollectedHarness();
  });
  afterEach(() => h.close());

  /** Live payments of `cents` each, paid by plain transfers, succeeded, their transfers final. */
  async function paidPayments(cents: number[], amounts: bigint[]): Promise<{ paymentId: string; deposit: Address }[]> {
    const paid: { paymentId: string; deposit: Address }[] = [];
    for (const [i, c] of cents.entries()) {
      const p = await h.livePayment(c);
      await h.transfer(await h.sender(), [[p.deposit, amounts[i]!]]);
      paid.push(p);
    }
    await h.scanUntil('the payments to succeed', async () =>
      (await Promise.all(paid.map((p) => h.payment(p.paymentId)))).every((p) => p.status === 'succeeded'),
    );
    h.finalize();
    await h.scanUntil('the transfers to be final', async () => {
      const rows = await h.runtime.db.knex('deposit_transfers').whereIn(
        'payment_id',
        paid.map((p) => p.paymentId),
      );
      return rows.length === paid.length && rows.every((r: { state: string }) => r.state === 'final');
    });
    return paid;
  }

  const rowOf = (table: 'sweeps' | 'payouts' | 'onchain_refunds', id: string) =>
    h.runtime.db.knex(table).where({ id }).first() as Promise<Record<string, string>>;

  /** Drives the row's job until it is sent, then past finality until it is final; answers its signature. */
  async function moved(table: 'sweeps' | 'payouts' | 'onchain_refunds', id: string): Promise<string> {
    const sent = await h.driveUntil(`${id} sent`, async () => {
      const row = await rowOf(table, id);
      return row.state === 'sent' && row.tx_id;
    });
    h.finalize();
    await h.driveUntil(`${id} final`, async () => (await rowOf(table, id)).state === 'final');
    assert.equal((await rowOf(table, id)).tx_id, sent, 'final under the signature it was sent with');
    return sent;
  }

  const settledEvents = async () =>
    ((await h.runtime.db.knex('events').where({ type: 'payment.settled' }).select()) as EventRow[]).map((e) => ({
      paymentId: e.payment_id,
      settled: (JSON.parse(e.payload) as { data: { settled: Record<string, unknown> } }).data.settled,
    }));

  it('planSweeps + settlement.move: two deposits swept in one transaction, swept in the ledger at finality', async () => {
    const [a, b] = await paidPayments([1250, 777], [ASKED, 7_770_000n]);
    const collection = await h.port.keyAddress(h.caip2, { role: 'collection' });

    const [sweepId, ...more] = await planSweeps(h.runtime.checkout!);
    assert.deepEqual(more, [], 'both deposits in one sweep');
    assert.deepEqual(await planSweeps(h.runtime.checkout!), [], 'the same funds are never planned twice');
    const sent = await h.driveUntil('the sweep sent', async () => {
      const row = await rowOf('sweeps', sweepId!);
      return row.state === 'sent' && row.tx_id;
    });
    assert.deepEqual(await Promise.all([a!.deposit, b!.deposit, collection].map((o) => h.balance(o))), [
      0n,
      0n,
      ASKED + 7_770_000n,
    ]);

    h.finalize();
    await h.driveUntil('the sweep final', async () => (await rowOf('sweeps', sweepId!)).state === 'final');
    const swept = await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] });
    assert.deepEqual(
      swept.map((e) => [e.address, e.amount, e.paymentId, e.txId]).sort(),
      [
        [a!.deposit, ASKED, a!.paymentId, sent],
        [b!.deposit, 7_770_000n, b!.paymentId, sent],
      ].sort(),
    );
    assert.deepEqual(await planSweeps(h.runtime.checkout!), []);
  });

  it('planPayouts + settlement.move: one payout of two payments, net and fee exact, settled with its signature at finality', async () => {
    const paid = await paidPayments([1250, 777], [ASKED, 7_770_000n]);
    const [sweepId] = await planSweeps(h.runtime.checkout!);
    await moved('sweeps', sweepId!);
    // 12.50 USD: fee 662,500, payable 11,837,500; 7.77 USD: fee 300,000 + 225,330 = 525,330, payable 7,244,670.
    const fee = FEE_TOTAL + 525_330n;
    const net = ASKED - FEE_TOTAL + (7_770_000n - 525_330n);
    assert.deepEqual([net, fee], [19_082_170n, 1_187_830n]);
    const treasury = await h.port.keyAddress(h.caip2, { role: 'devTreasury' });

    const [payoutId, ...more] = await planPayouts(h.runtime.checkout!);
    assert.deepEqual(more, [], 'one payout per merchant, chain and asset');
    const payout = await rowOf('payouts', payoutId!);
    assert.deepEqual(
      [payout.gross, payout.fee, payout.net, payout.destination, payout.treasury],
      [String(net + fee), String(fee), String(net), h.payoutAddress, treasury],
    );
    const sent = await h.driveUntil('the payout sent', async () => {
      const row = await rowOf('payouts', payoutId!);
      return row.state === 'sent' && row.tx_id;
    });
    const collection = await h.port.keyAddress(h.caip2, { role: 'collection' });
    assert.deepEqual(await Promise.all([h.payoutAddress, treasury, collection].map((o) => h.balance(o))), [
      net,
      fee,
      0n,
    ]);
    // Landed at `confirmed`, not finalized: no payment settles, nothing is paid out in the ledger.
    await h.drain();
    assert.deepEqual(await settledEvents(), []);
    assert.deepEqual(await listLedgerEntries(h.runtime.db.knex, { kinds: ['paid_out', 'fee_paid'] }), []);

    h.finalize();
    await h.driveUntil('the payout final', async () => (await rowOf('payouts', payoutId!)).state === 'final');
    const events = await settledEvents();
    assert.deepEqual(events.map((e) => e.paymentId).sort(), paid.map((p) => p.paymentId).sort());
    const payable = new Map([
      [paid[0]!.paymentId, ASKED - FEE_TOTAL],
      [paid[1]!.paymentId, 7_770_000n - 525_330n],
    ]);
    for (const e of events) {
      assert.equal(e.settled.tx_id, sent);
      assert.deepEqual(e.settled.settlement_amount, {
        unit: `caip19/${h.asset}`,
        value: payable.get(e.paymentId)!.toString(),
      });
    }
    assert.deepEqual(
      (await listLedgerEntries(h.runtime.db.knex, { payoutId })).map((e) => [e.kind, e.amount, e.address]).sort(),
      [
        ['fee_paid', fee, treasury],
        ['paid_out', net, h.payoutAddress],
        // The reservation planning wrote, posted once at finality.
        ['payout_reserved', net, h.payoutAddress],
        ['payout_released', net, h.payoutAddress],
      ].sort(),
    );
    const [balance] = await unpaidBalances(h.runtime.db.knex, { merchantId: h.account.merchantId, live: true });
    assert.equal(balance!.amount, 0n);
    await h.drain();
    assert.equal((await settledEvents()).length, 2, 'settled once');
  });

  const merchantCall = (method: string, path: string, body?: unknown) =>
    h.call(method, path, { body, headers: { 'Api-Key': h.account.liveKey, 'Merchant-Id': h.account.merchantId } });

  /** The wallet flow in collected mode: options (recipient: the deposit), fetch, the buyer signs, confirm. */
  async function paidByWallet(): Promise<{ paymentId: string; deposit: Address; buyer: Address }> {
    const { paymentId, deposit } = await h.livePayment();
    const buyer = await h.solanaBuyer();
    const live = { 'Api-Key': h.wallet.liveKey };
    const { options } = await expectJson<OptionsAnswer>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/options`, {
        body: { accounts: [buyer.caip10] },
        headers: live,
      }),
      200,
    );
    const option = options!.find((o) => o.amount.unit === `caip19/${h.asset}`)!;
    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    const fetched = await expectJson<{ actions: { data: { params: { transaction: string }[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
        headers: live,
      }),
      200,
    );
    const tx = getTransactionDecoder().decode(Buffer.from(fetched.actions[0]!.data.params[0]!.transaction, 'base64'));
    const signed = getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.signer.keyPair], tx));
    await expectJson(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/confirm`, {
        body: { optionId: option.id, results: [signed] },
        headers: live,
      }),
      200,
    );
    await h.driveUntil('the payment to succeed', async () => (await h.payment(paymentId)).status === 'succeeded');
    assert.equal(await h.balance(deposit), ASKED, 'a wallet pays the deposit address in collected mode');
    await h.scanUntil('the transfer recorded', async () => (await h.transfers(paymentId)).length === 1);
    h.finalize();
    await h.scanUntil('the transfer final', async () => (await h.transfers(paymentId))[0]!.state === 'final');
    return { paymentId, deposit, buyer: buyer.signer.address };
  }

  it('refundPayment to the sender: a payment confirmed by a wallet is refunded to the signing account by the executor', async () => {
    const p = await paidByWallet();
    assert.deepEqual(
      (await h.ledger(p.paymentId)).map((e) => [e.kind, e.amount]),
      [
        ['fee', FEE_TOTAL],
        ['payable', ASKED - FEE_TOTAL],
        ['received', ASKED],
      ],
    );
    const [sweepId] = await planSweeps(h.runtime.checkout!);
    await moved('sweeps', sweepId!);
    const before = await h.balance(p.buyer);

    const answer = await expectJson<RefundBody>(
      await merchantCall('POST', `/v1/merchant/payment/${p.paymentId}/refund`, { amount: '2500000' }),
      200,
    );
    assert.deepEqual([answer.refund!.state, answer.refund!.destination], ['planned', p.buyer]);
    const txId = await moved('onchain_refunds', answer.refund!.refund_id);
    assert.equal((await h.balance(p.buyer)) - before, 2_500_000n);
    const snapshot = await expectJson<RefundBody>(
      await merchantCall('GET', `/v1/merchant/payment/${p.paymentId}`),
      200,
    );
    assert.deepEqual(
      snapshot.refunded.refunds!.map((r) => [r.state, r.destination, r.tx_id]),
      [['final', p.buyer, txId]],
    );
  });

  it('refundPayment through a claim link: a plain transfer is refunded to the address the buyer enters, sent by the executor', async () => {
    const [p] = await paidPayments([1250], [ASKED]);
    const [sweepId] = await planSweeps(h.runtime.checkout!);
    await moved('sweeps', sweepId!);

    const answer = await expectJson<RefundBody>(
      await merchantCall('POST', `/v1/merchant/payment/${p!.paymentId}/refund`, { amount: '4000000' }),
      200,
    );
    assert.equal(answer.refund!.state, 'awaiting_claim', 'a plain transfer may come from an exchange: a link');
    const token = new URL(answer.refund!.claim_url!).hash.slice(1);
    const buyer = (await generateKeyPairSigner()).address;
    await expectJson(
      await h.call('POST', '/v1/gateway/refund-claims/claim', {
        body: { token, address: buyer },
        headers: { 'Api-Key': null },
      }),
      200,
    );

    const refundId = answer.refund!.refund_id;
    const txId = await moved('onchain_refunds', refundId);
    assert.equal(await h.balance(buyer), 4_000_000n);
    const snapshot = await expectJson<RefundBody>(
      await merchantCall('GET', `/v1/merchant/payment/${p!.paymentId}`),
      200,
    );
    assert.deepEqual(
      snapshot.refunded.refunds!.map((r) => [r.refund_id, r.state, r.destination, r.tx_id]),
      [[refundId, 'final', buyer, txId]],
    );
    // The ledger's row is the one reserved at the request (a claim link's has no address yet): the refund row has the rest.
    const [refunded] = await listLedgerEntries(h.runtime.db.knex, { kinds: ['refunded'] });
    assert.deepEqual([refunded!.amount, refunded!.refundId], [4_000_000n, refundId]);
  });
});
