/**
 * The SDK's invoice methods against a real server (answers validated by the contract): create, get, list across
 * pages, void, and the numbering sequence; a refusal is a PaygateError with the contract's code.
 */
import assert from 'node:assert/strict';
import { PaygateError, type Invoice } from '@paygate/sdk-merchant';
import { startSdkHarness, type SdkHarness } from './helpers.js';

describe('sdkMerchant.invoices', () => {
  let h: SdkHarness;
  before(async () => {
    h = await startSdkHarness();
  });
  after(() => h.close());

  const body = () => ({
    currency: 'iso4217/USD',
    lineItems: [{ name: 'Consulting', quantity: 3, unitAmount: '15000' }],
    dueAt: Math.floor(h.clock.now() / 1000) + 86_400,
  });

  it('creates, reads, lists across pages and voids invoices, numbered from the sequence it sets', async () => {
    const sdk = h.merchant();
    assert.deepEqual(await sdk.updateInvoiceSequence({ prefix: 'ACME-', nextNumber: 7 }), {
      prefix: 'ACME-',
      nextNumber: 7,
    });
    const a = await sdk.createInvoice(body());
    // The list is newest first by creation time; the clock stands still unless moved.
    h.clock.advance(1000);
    const b = await sdk.createInvoice({ ...body(), notes: 'Second' });
    assert.deepEqual([a.number, b.number, a.amount.value, a.status], ['ACME-0007', 'ACME-0008', '45000', 'open']);
    assert.equal((await sdk.getInvoice(b.invoiceId)).notes, 'Second');
    const seen: Invoice[] = [];
    for await (const invoice of sdk.listInvoices({ limit: 1 })) seen.push(invoice);
    assert.deepEqual(
      seen.map((i) => i.number),
      ['ACME-0008', 'ACME-0007'],
    );
    assert.equal((await sdk.voidInvoice(a.invoiceId)).status, 'void');
    assert.deepEqual(await sdk.getInvoiceSequence(), { prefix: 'ACME-', nextNumber: 9 });
  });

  it('a refusal is a PaygateError: an unknown invoice is 404 invalid_params', async () => {
    await assert.rejects(
      h.merchant().getInvoice('in_AAAAAAAAAAAAAAAAAAAAAAAA'),
      (err: unknown) => err instanceof PaygateError && err.status === 404 && err.code === 'invalid_params',
    );
  });
});
