import assert from 'node:assert/strict';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { BALANCE_CACHE_MS } from '../../server/src/chains/eip155/adapter.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { startCheckoutHarness, type CheckoutHarness } from './checkout.js';

/** docs/decisions.md §17: an account's balances are reused for BALANCE_CACHE_MS of wall time between listings. */
describe('gateway getPaymentOptions: balances reused between listings', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  // The cache's wall clock, moved by the test only.
  let wall = 0;
  before(async () => {
    h = await startCheckoutHarness({ checkout: { evm: { wallNow: () => wall } } });
  });
  after(() => h.close());

  it('answers from the balances read less than the cache life ago, then reads them on chain again', async () => {
    const buyer = await h.buyer(0n, 0n);
    const paymentId = await h.createPayment();
    const units = async () =>
      (await h.options(paymentId, [buyer.caip10])).options!.map((o) => o.amount.unit.split('/').pop()).sort();
    assert.deepEqual(await units(), [], 'nothing held');

    // The faucet sends gas money with the tokens.
    await fundAccount(h.chains.local!, { account: buyer.caip10, asset: h.tusd, amount: '100000000' });
    assert.deepEqual(await units(), [], 'the same listing again: the balances read a moment ago');
    wall += BALANCE_CACHE_MS - 1;
    assert.deepEqual(await units(), [], 'still within the cache life');
    wall += 1;
    assert.deepEqual(await units(), [`erc20:${h.local.testUsd}`, 'slip44:60'], 'read on chain: what was just received');
  });

  it('keeps each account apart: another account is read on chain at once', async () => {
    const first = await h.buyer(0n, 0n);
    const second = await h.buyer(0n, 0n);
    const paymentId = await h.createPayment();
    assert.deepEqual((await h.options(paymentId, [first.caip10])).options, []);
    await fundAccount(h.chains.local!, { account: second.caip10, asset: h.tusd, amount: '100000000' });
    const answer = await h.options(paymentId, [second.caip10]);
    assert.ok(
      answer.options!.some((o) => o.account === second.caip10 && o.amount.unit.endsWith(`erc20:${h.local.testUsd}`)),
      JSON.stringify(answer.options!.map((o) => o.amount.unit)),
    );
  });
});
