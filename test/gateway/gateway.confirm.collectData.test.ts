import assert from 'node:assert/strict';
import { readCollectedData, saveCollectedData } from '../../server/src/collect/index.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectError, expectJson } from './harness.js';
import { signAction, startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from './checkout.js';

const valid = {
  fullName: 'Ada Lovelace',
  dob: '1815-12-10',
  porCountry: 'GB',
  porAddress: 'London',
  tosConfirmed: true,
};
/** USD 1,000.00 reaches the default travel-rule threshold. */
const large = { unit: 'iso4217/USD', value: '100000' };

describe('gateway confirm: data collection', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h.close());

  it('requires collectedData on a payment at the threshold, validates it, and stores it sealed', async () => {
    const buyer = await h.buyer(2_000_000_000n);
    const paymentId = await h.createPayment({ amount: large });
    const answer = await h.options(paymentId, [buyer.caip10]);
    assert.ok(answer.collectData, 'the answer requires data collection');
    assert.match(answer.collectData.url, new RegExp(`/collect/${paymentId}\\?t=`));
    const option = answer.options!.find((o) => o.amount.unit === `caip19/${h.tusd}`)!;
    assert.deepEqual(option.collectData, answer.collectData);
    const results = [await signAction(buyer, option)];

    const missing = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results }),
      400,
      'params_validation',
    );
    assert.match(missing, /requires collectedData/);
    await expectError(
      await h.confirm(paymentId, { optionId: option.id, results, collectedData: { ...valid, porCountry: 'gb' } }),
      400,
      'params_validation',
    );
    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results, collectedData: valid }),
      200,
    );
    assert.equal(accepted.status, 'processing');
    const row = await h.runtime.db.knex('collected_data').where({ payment_id: paymentId }).first();
    assert.ok(!String(row.sealed).includes('Lovelace'), 'sealed at rest');
    assert.deepEqual(await readCollectedData(h.runtime, paymentId), valid);
  });

  it('accepts a confirm without collectedData when the web form already collected it', async () => {
    const buyer = await h.buyer(2_000_000_000n);
    const paymentId = await h.createPayment({ amount: large });
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    await saveCollectedData(h.runtime, paymentId, valid as Parameters<typeof saveCollectedData>[2]);
    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [await signAction(buyer, option)] }),
      200,
    );
    assert.equal(accepted.status, 'processing');
  });

  it('accepts WalletConnect Pay’s {fields: [{id, value}]} form and refuses a repeated id, a false checkbox, an unknown field', async () => {
    const buyer = await h.buyer(2_000_000_000n);
    const paymentId = await h.createPayment({ amount: large });
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const results = [await signAction(buyer, option)];
    const fields = Object.entries(valid).map(([id, value]) => ({ id, value: String(value) }));
    const refused = async (collected: { id: string; value: string }[], field: RegExp) => {
      const body = { optionId: option.id, results, collectedData: { fields: collected } };
      assert.match(await expectError(await h.confirm(paymentId, body), 400, 'params_validation'), field);
    };
    await refused([...fields, { id: 'fullName', value: 'Someone Else' }], /fullName/);
    await refused(
      [...fields.filter((f) => f.id !== 'tosConfirmed'), { id: 'tosConfirmed', value: 'false' }],
      /tosConfirmed/,
    );
    await refused([...fields, { id: 'shoeSize', value: '42' }], /shoeSize/);
    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results, collectedData: { fields } }),
      200,
    );
    assert.equal(accepted.status, 'processing');
    assert.deepEqual(await readCollectedData(h.runtime, paymentId), valid);
  });

  it('needs no data below the threshold', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const answer = await h.options(paymentId, [buyer.caip10]);
    assert.equal(answer.collectData, null);
  });
});
