/**
 * An invoice's status, derived from its payments that succeeded and the clock (docs/decisions.md §30.10), and the
 * page's "Pay" (§30.11): open, partially paid, paid in two payments, overdue, void. On both databases.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, simulate, startHarness, type Harness } from './harness.js';
import { createInvoice, getInvoice, payInvoice } from './invoiceHarness.js';

interface Paid {
  paymentId: string;
  gatewayUrl: string;
  amount: { unit: string; value: string };
}

describeEachDatabase('merchant.getInvoice status', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  it('open, then partially paid, then paid by a second payment for the rest; a paid invoice has no Pay', async () => {
    const invoice = await createInvoice(h);
    assert.equal(invoice.status, 'open');
    assert.deepEqual(invoice.amount, { unit: 'iso4217/USD', value: '90000' });
    assert.equal(invoice.url, `${h.runtime.config.publicBaseUrl}/i/${invoice.invoiceId}`);

    const first = await expectJson<Paid>(await payInvoice(h, invoice.invoiceId, '20000'), 200);
    assert.deepEqual(first.amount, { unit: 'iso4217/USD', value: '20000' });
    assert.equal(first.gatewayUrl, `${h.runtime.config.publicBaseUrl}/pay/${first.paymentId}`);
    await simulate(h, first.paymentId, 'processing');
    // Being processed: what is due is unknown until it ends, so the page offers no second payment.
    await expectError(await payInvoice(h, invoice.invoiceId), 409, 'invalid_state');
    await simulate(h, first.paymentId, 'succeeded');

    const partly = await getInvoice(h, invoice.invoiceId);
    assert.equal(partly.status, 'partially_paid');
    assert.equal(partly.amountPaid.value, '20000');
    assert.equal(partly.amountDue.value, '70000');

    const second = await expectJson<Paid>(await payInvoice(h, invoice.invoiceId), 200);
    assert.equal(second.amount.value, '70000');
    const payment = await expectJson<{ reference_id: string }>(
      await h.call('GET', `/v1/merchant/payment/${second.paymentId}`),
      200,
    );
    assert.equal(payment.reference_id, invoice.invoiceId);
    await simulate(h, second.paymentId, 'processing', 'succeeded');

    const paid = await getInvoice(h, invoice.invoiceId);
    assert.equal(paid.status, 'paid');
    assert.deepEqual(
      paid.payments.map((p) => [p.paymentId, p.status, p.amount.value]),
      [
        [first.paymentId, 'succeeded', '20000'],
        [second.paymentId, 'succeeded', '70000'],
      ],
    );
    assert.equal(paid.amountDue.value, '0');
    await expectError(await payInvoice(h, invoice.invoiceId), 409, 'invalid_state');
    await expectError(await h.call('POST', `/v1/merchant/invoices/${invoice.invoiceId}/void`), 409, 'invalid_state');
  });

  it('pressing Pay again hands out the same open payment; an amount above what is due is refused', async () => {
    const invoice = await createInvoice(h);
    const [a, b] = await Promise.all([payInvoice(h, invoice.invoiceId), payInvoice(h, invoice.invoiceId)]);
    const first = await expectJson<Paid>(a, 200);
    assert.equal((await expectJson<Paid>(b, 200)).paymentId, first.paymentId);
    assert.equal((await getInvoice(h, invoice.invoiceId)).payments.length, 1);
    await expectError(await payInvoice(h, invoice.invoiceId, '90001'), 400, 'params_validation');
  });

  it('overdue once the due time passes (partly paid or not), by the injected clock', async () => {
    const invoice = await createInvoice(h);
    const part = await expectJson<Paid>(await payInvoice(h, invoice.invoiceId, '100'), 200);
    await simulate(h, part.paymentId, 'processing', 'succeeded');
    assert.equal((await getInvoice(h, invoice.invoiceId)).status, 'partially_paid');
    h.clock.advance(86_400_000);
    const overdue = await getInvoice(h, invoice.invoiceId);
    assert.equal(overdue.status, 'overdue');
    assert.equal(overdue.amountPaid.value, '100');
    // Overdue is still payable.
    await expectJson(await payInvoice(h, invoice.invoiceId), 200);
  });

  it('void: the page cannot pay it, voiding again is idempotent, and the list shows it', async () => {
    const invoice = await createInvoice(h);
    const voided = await expectJson<{ status: string; voidedAt: number }>(
      await h.call('POST', `/v1/merchant/invoices/${invoice.invoiceId}/void`),
      200,
    );
    assert.equal(voided.status, 'void');
    const again = await expectJson<{ voidedAt: number }>(
      await h.call('POST', `/v1/merchant/invoices/${invoice.invoiceId}/void`),
      200,
    );
    assert.equal(again.voidedAt, voided.voidedAt);
    await expectError(await payInvoice(h, invoice.invoiceId), 409, 'invalid_state');
    const page = await expectJson<{ data: { invoiceId: string; status: string }[]; hasMore: boolean }>(
      await h.call('GET', '/v1/merchant/invoices?limit=2'),
      200,
    );
    assert.deepEqual(page.data[0], { ...page.data[0], invoiceId: invoice.invoiceId, status: 'void' });
    assert.equal(page.hasMore, true);
  });

  it("the buyer is sealed at rest; another mode's or an unknown invoice is 404 invalid_params", async () => {
    const invoice = await createInvoice(h);
    assert.deepEqual(invoice.buyer, { name: 'Ada Lovelace', email: 'ada@example.com' });
    const row = (await get().db.knex('invoices').where({ id: invoice.invoiceId }).first()) as { buyer_sealed: string };
    assert.match(row.buyer_sealed, /^v1\./);
    // The plaintext, not a fragment a random ciphertext may hold (base64url has no "@" or space).
    assert.doesNotMatch(row.buyer_sealed, /ada@example\.com|Ada Lovelace/);
    await expectError(
      await h.call('GET', `/v1/merchant/invoices/${invoice.invoiceId}`, { live: true }),
      404,
      'invalid_params',
    );
    await expectError(await h.call('GET', '/v1/merchant/invoices/in_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'invalid_params');
    await expectError(
      await fetch(`${h.server.url}/v1/gateway/invoices/in_AAAAAAAAAAAAAAAAAAAAAAAA`),
      404,
      'invalid_params',
    );
    const pub = await expectJson<{ number: string; payable: boolean; merchantName: string }>(
      await fetch(`${h.server.url}/v1/gateway/invoices/${invoice.invoiceId}`),
      200,
    );
    assert.equal(pub.number, invoice.number);
    assert.equal(pub.payable, true);
  });

  it('400 params_validation for a total of zero or a due time in the past', async () => {
    const zero = { lineItems: [{ name: 'Free', quantity: 1, unitAmount: '0' }] };
    const body = (extra: Record<string, unknown>) => ({
      currency: 'iso4217/USD',
      lineItems: [{ name: 'A', quantity: 1, unitAmount: '100' }],
      dueAt: Math.floor(h.clock.now() / 1000) + 60,
      ...extra,
    });
    await expectError(await h.call('POST', '/v1/merchant/invoices', { body: body(zero) }), 400, 'params_validation');
    await expectError(
      await h.call('POST', '/v1/merchant/invoices', { body: body({ dueAt: Math.floor(h.clock.now() / 1000) - 1 }) }),
      400,
      'params_validation',
    );
  });
});
