/** Issue 35 §2 through `@paygate/sdk-merchant`: a payment link made, read, listed, changed and deactivated. */
import assert from 'node:assert/strict';
import type { PaymentLink } from '@paygate/sdk-merchant';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { startSdkHarness, type SdkHarness } from './helpers.js';

describe('sdkMerchant.paymentLinks', () => {
  let h: SdkHarness;
  before(async () => {
    h = await startSdkHarness();
  });
  after(() => h.close());

  it('creates, reads, lists, updates and deactivates a payment link', async () => {
    const account = await createMerchantAccount(h.runtime);
    const paygate = h.merchant({ apiKey: account.testKey, merchantId: account.merchantId });
    const link: PaymentLink = await paygate.createPaymentLink({
      currency: 'iso4217/USD',
      minAmount: '100',
      maxAmount: '10000',
      description: 'Tips',
    });
    assert.equal(link.state, 'active');
    assert.deepEqual(await paygate.getPaymentLink(link.id), link);
    const listed: string[] = [];
    for await (const l of paygate.listPaymentLinks({ limit: 1 })) listed.push(l.id);
    assert.deepEqual(listed, [link.id]);
    assert.equal((await paygate.updatePaymentLink(link.id, { maxUses: 3 })).maxUses, 3);
    assert.equal((await paygate.deactivatePaymentLink(link.id)).state, 'deactivated');
  });
});
