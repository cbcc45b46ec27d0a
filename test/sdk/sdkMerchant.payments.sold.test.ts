/**
 * Issue 35 §1 through `@paygate/sdk-merchant`: a payment created with description, line items, buyer and metadata
 * reads them back, and its webhook, verified with `@paygate/webhook-verifier`, carries them (decisions.md §30.1).
 */
import assert from 'node:assert/strict';
import type { CreatePaymentRequest, PaymentSnapshot } from '@paygate/sdk-merchant';
import { Webhook } from '@paygate/webhook-verifier';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startSdkHarness, type SdkHarness } from './helpers.js';

describe('sdkMerchant.payments with what was sold', () => {
  let h: SdkHarness;
  let receiver: Receiver;
  before(async () => {
    h = await startSdkHarness();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await h.close();
  });

  it('createPayment with description, lineItems, buyer and metadata reads them back and its verified webhook carries them', async () => {
    const account = await createMerchantAccount(h.runtime);
    const { secret } = await createEndpoint(h.runtime, account.merchantId, 'test', { url: `${receiver.url}/hooks` });
    const paygate = h.merchant({ apiKey: account.testKey, merchantId: account.merchantId });
    const order: CreatePaymentRequest = {
      amount: { unit: 'iso4217/EUR', value: '2300' },
      referenceId: 'order_sdk_sold',
      description: 'A year of beans',
      lineItems: [
        { name: 'Beans, 1 kg', quantity: 2, unitAmount: '1000' },
        { name: 'Delivery', quantity: 1, unitAmount: '300' },
      ],
      buyer: { email: 'sdk.buyer@example.com', name: 'Sdk Buyer' },
      metadata: { crm_id: 'C-77', plan: 'yearly' },
    };
    const { paymentId } = await paygate.createPayment(order);
    const payment = await paygate.getPayment(paymentId);
    const expected: Pick<PaymentSnapshot, 'description' | 'line_items' | 'buyer' | 'metadata'> = {
      description: 'A year of beans',
      line_items: [
        { name: 'Beans, 1 kg', quantity: 2, unit_amount: '1000' },
        { name: 'Delivery', quantity: 1, unit_amount: '300' },
      ],
      buyer: { email: 'sdk.buyer@example.com', name: 'Sdk Buyer' },
      metadata: { crm_id: 'C-77', plan: 'yearly' },
    };
    const { description, line_items, buyer, metadata } = payment;
    assert.deepEqual({ description, line_items, buyer, metadata }, expected);

    await h.runtime.jobs.drain();
    assert.equal(receiver.received.length, 1);
    const [hit] = receiver.received;
    const verifier = new Webhook(secret, { now: () => Math.floor(h.clock.now() / 1000) });
    const event = verifier.verify(hit!.body, hit!.headers) as { type: string; data: PaymentSnapshot };
    assert.equal(event.type, 'payment.created');
    assert.equal(event.data.payment_id, paymentId);
    const { description: d, line_items: l, buyer: b, metadata: m } = event.data;
    assert.deepEqual({ description: d, line_items: l, buyer: b, metadata: m }, expected);
  });
});
