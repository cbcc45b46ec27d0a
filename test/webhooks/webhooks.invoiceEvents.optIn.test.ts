/**
 * Invoice webhooks (docs/decisions.md §30.12): `invoice.partially_paid` then `invoice.paid` reach an endpoint that
 * names them, signed like every delivery (verified here with @paygate/webhook-verifier); an endpoint created without
 * a list gets the seven payment types only, and no invoice event. On both databases (the hook locks the invoice).
 */
import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import { createEndpoint, DEFAULT_EVENT_TYPES, updateEndpointSettings } from '../../server/src/webhooks/endpoints.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { expectJson, simulate, startHarness, type Harness } from '../merchant/harness.js';
import { createInvoice, payInvoice } from '../merchant/invoiceHarness.js';

interface InvoiceEvent {
  type: string;
  data: {
    invoice_id: string;
    status: string;
    amount_paid: { value: string };
    amount_due: { value: string };
    payment_id: string;
  };
}

describeEachDatabase('webhooks.invoiceEvents', (get) => {
  let h: Harness;
  let receiver: Receiver;
  let webhook: Webhook;
  let endpointId: string;
  before(async () => {
    h = await startHarness({ db: get().db, config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    receiver = await startReceiver();
    const { endpoint, secret } = await createEndpoint(h.runtime, h.account.merchantId, 'test', { url: receiver.url });
    endpointId = endpoint.id;
    // Signed at the business clock's time, which the test moves.
    webhook = new Webhook(secret, { now: () => Math.floor(h.clock.now() / 1000) });
  });
  after(async () => {
    await receiver.close();
    await h.close();
  });

  const invoiceEvents = () =>
    receiver.received
      .map((r) => webhook.verify(r.body, r.headers) as unknown as InvoiceEvent)
      .filter((e) => e.type.startsWith('invoice.'));
  const drive = (what: string, done: () => boolean) =>
    driveJobsUntil(what, { clock: h.clock, drain: () => h.runtime.jobs.drain() }, done);

  async function payPart(invoiceId: string, amount?: string): Promise<string> {
    const { paymentId } = await expectJson<{ paymentId: string }>(await payInvoice(h, invoiceId, amount), 200);
    await simulate(h, paymentId, 'processing', 'succeeded');
    return paymentId;
  }

  it('an endpoint without a list gets the seven payment types only, and no invoice event', async () => {
    const endpoint = await h.runtime.db.knex('webhook_endpoints').where({ id: endpointId }).first('event_types');
    assert.deepEqual(JSON.parse(String((endpoint as { event_types: string }).event_types)), [...DEFAULT_EVENT_TYPES]);
    const invoice = await createInvoice(h);
    const paymentId = await payPart(invoice.invoiceId);
    await drive('the payment.succeeded delivery', () =>
      receiver.received.some((r) => r.body.includes('"payment.succeeded"') && r.body.includes(paymentId)),
    );
    assert.deepEqual(invoiceEvents(), []);
  });

  it('an endpoint that names them gets invoice.partially_paid, then invoice.paid, verified', async () => {
    await updateEndpointSettings(h.runtime, h.account.merchantId, 'test', {
      eventTypes: [...DEFAULT_EVENT_TYPES, 'invoice.partially_paid', 'invoice.paid'],
    });
    const invoice = await createInvoice(h);
    const first = await payPart(invoice.invoiceId, '30000');
    const second = await payPart(invoice.invoiceId);
    await drive(
      'both invoice events',
      () => invoiceEvents().filter((e) => e.data.invoice_id === invoice.invoiceId).length === 2,
    );
    const events = invoiceEvents()
      .filter((e) => e.data.invoice_id === invoice.invoiceId)
      .map((e) => [e.type, e.data.status, e.data.amount_paid.value, e.data.amount_due.value, e.data.payment_id]);
    assert.deepEqual(events.sort(), [
      ['invoice.paid', 'paid', '90000', '0', second],
      ['invoice.partially_paid', 'partially_paid', '30000', '60000', first],
    ]);
  });
});
