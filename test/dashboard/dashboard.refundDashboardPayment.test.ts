import assert from 'node:assert/strict';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

describeEachDatabase('dashboard.refundDashboardPayment', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
  });
  after(() => d.close());

  const refund = (id: string, body?: unknown) => m.call('POST', `/v1/dashboard/payments/${id}/refund`, { body });
  const simulate = async (id: string, to: string) =>
    expectJson(await m.call('POST', `/v1/dashboard/payments/${id}/simulate`, { body: { to } }), 200);

  it('refundDashboardPayment records a refund of a succeeded payment once', async () => {
    const id = await m.createPayment();
    await simulate(id, 'processing');
    await simulate(id, 'succeeded');
    const snapshot = await expectJson<{ status: string; refunded: { reason: string | null } }>(
      await refund(id, { reason: 'returned' }),
      200,
    );
    assert.deepEqual([snapshot.status, snapshot.refunded.reason], ['succeeded', 'returned']);
    await expectError(await refund(id), 409, 'already_refunded');
  });

  it('refundDashboardPayment answers 409 payment_not_succeeded for an unpaid payment, 404 for an unknown one', async () => {
    const id = await m.createPayment();
    await expectError(await refund(id), 409, 'payment_not_succeeded');
    await expectError(await refund('pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'payment_not_found');
  });

  it('refundDashboardPayment: a double click (two refunds at once) records one refund; the other is 409 already_refunded', async () => {
    const id = await m.createPayment();
    await simulate(id, 'processing');
    await simulate(id, 'succeeded');
    const answers = await Promise.all([refund(id, { reason: 'first' }), refund(id, { reason: 'second' })]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    await expectError(refused, 409, 'already_refunded');
    const won = await expectJson<{ refunded: { reason: string } }>(
      answers.find((a) => a.status === 200)!,
      200,
    );
    const read = await expectJson<{ refunded: { reason: string } }>(
      await m.call('GET', `/v1/dashboard/payments/${id}`),
      200,
    );
    assert.equal(read.refunded.reason, won.refunded.reason, 'the record is the accepted request');
  });

  it('refundDashboardPayment answers 409 invalid_state for a payment of collected settlement, and records nothing', async () => {
    const id = await m.createPayment();
    await simulate(id, 'processing');
    await simulate(id, 'succeeded');
    // What collected settlement writes at success: the merchant's share, held by the operator.
    await insertLedgerEntries(get().db.knex, [
      {
        entryKey: `payable:${id}`,
        kind: 'payable',
        merchantId: m.account.merchantId,
        live: false,
        mode: 'collected',
        chain: 'eip155:31337',
        asset: 'eip155:31337/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3',
        amount: 975n,
        address: null,
        paymentId: id,
        createdAt: Date.now(),
      },
    ]);
    const refused = await expectError(await refund(id, { reason: 'returned' }), 409, 'invalid_state');
    assert.match(refused, /refundPayment/);
    const read = await expectJson<{ refunded?: unknown }>(await m.call('GET', `/v1/dashboard/payments/${id}`), 200);
    assert.equal(read.refunded ?? null, null);
  });
});
