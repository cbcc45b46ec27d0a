import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectError, expectJson } from './harness.js';
import { startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from './checkout.js';

describe('gateway getPaymentOptions: screening', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let screenedAddress: string;
  before(async () => {
    // The screened account is a fixed address written in lower case: the list matches EVM addresses in any case.
    screenedAddress = '0x00000000000000000000000000000000000bad01';
    const file = join(mkdtempSync(join(tmpdir(), 'screening-')), 'list.txt');
    writeFileSync(file, `# test list\n${screenedAddress}\n`);
    h = await startCheckoutHarness({ config: { PAYGATE_SCREENING_FILE: file } });
  });
  after(() => h.close());

  it('answers 403 sanctioned_user for a screened account among the accounts and leaves the payment unchanged', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const screened = `eip155:31337:0x00000000000000000000000000000000000BAD01`;
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/options`, {
        body: { accounts: [buyer.caip10, screened] },
      }),
      403,
      'sanctioned_user',
    );
    const status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'requires_action');
    // The same payment still offers options to an account that passes screening.
    assert.ok((await h.options(paymentId, [buyer.caip10])).options!.length > 0);
  });
});
