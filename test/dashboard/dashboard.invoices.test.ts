/**
 * The dashboard's invoice operations (docs/decisions.md §30.9–§30.12): the merchant API's create, list, void and
 * numbering for the request's mode (`Paygate-Mode`), answers validated by the contract.
 */
import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

interface InvoiceJson {
  invoiceId: string;
  number: string;
  status: string;
  live: boolean;
}

describe('dashboard.invoices', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const body = () => ({
    currency: 'iso4217/EUR',
    lineItems: [{ name: 'Repair', quantity: 1, unitAmount: '12000' }],
    dueAt: Math.floor(d.harness.clock.now() / 1000) + 86_400,
    buyer: { email: 'buyer@example.com' },
  });

  it('creates, lists and voids invoices of the request’s mode, numbered from the sequence it sets', async () => {
    assert.deepEqual(
      await expectJson(await m.call('POST', '/v1/dashboard/invoice-sequence', { body: { prefix: 'D-' } }), 200),
      { prefix: 'D-', nextNumber: 1 },
    );
    const created = await expectJson<InvoiceJson>(
      await m.call('POST', '/v1/dashboard/invoices', { body: body() }),
      201,
    );
    assert.deepEqual([created.number, created.status, created.live], ['D-0001', 'open', false]);
    const live = await expectJson<InvoiceJson>(
      await m.call('POST', '/v1/dashboard/invoices', { body: body(), live: true }),
      201,
    );
    assert.deepEqual([live.number, live.live], ['INV-0001', true]);
    const list = await expectJson<{ data: InvoiceJson[] }>(await m.call('GET', '/v1/dashboard/invoices'), 200);
    assert.deepEqual(
      list.data.map((i) => i.invoiceId),
      [created.invoiceId],
    );
    const voided = await expectJson<InvoiceJson>(
      await m.call('POST', `/v1/dashboard/invoices/${created.invoiceId}/void`),
      200,
    );
    assert.equal(voided.status, 'void');
    await expectError(await m.call('POST', `/v1/dashboard/invoices/${live.invoiceId}/void`), 404, 'invalid_params');
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/invoice-sequence'), 200), {
      prefix: 'D-',
      nextNumber: 2,
    });
  });
});
