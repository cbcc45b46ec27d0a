// A consumer's script, run with node against a real server by sdkMerchant.packaging.test.ts: the runtime files
// resolve through the exports map and work.
import * as sdk from '@paygate/sdk-merchant';

const paygate = new sdk.PaygateMerchant({
  baseUrl: process.env.PAYGATE_URL,
  apiKey: process.env.PAYGATE_API_KEY,
  merchantId: process.env.PAYGATE_MERCHANT_ID,
});
const created = await paygate.createPayment({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'packed' });
const events = [];
for (const to of ['processing', 'succeeded']) events.push(await paygate.simulate(created.paymentId, to));
const final = await paygate.waitForFinal(created.paymentId);
const notFound = await paygate.getPayment('pay_7Qz3kP9xWm2LrT8vN4bY6cJd').catch((e) => e);

const webhook = new sdk.Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIXlVA9OvVp6KmYtRu/jA=');
let fulfilled = 0;
const processor = new sdk.EventProcessor({ onSucceeded: () => void fulfilled++ });
const outcomes = [];
for (const [i, data] of events.entries()) {
  const body = JSON.stringify({
    id: 'evt_' + i,
    type: 'payment.' + data.status,
    api_version: '2026-02-18',
    created_at: data.created_at,
    data,
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': 'evt_' + i,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhook.sign('evt_' + i, timestamp, body),
  };
  const event = await webhook.verifyAsync(body, headers);
  outcomes.push((await processor.process(event)).outcome, (await processor.process(event)).outcome);
}
console.log(
  JSON.stringify({
    exports: Object.keys(sdk).sort(),
    final,
    notFound: [notFound instanceof sdk.PaygateError, notFound.code, notFound.status],
    outcomes,
    fulfilled,
  }),
);
